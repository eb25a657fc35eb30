package tests

import (
	"context"
	"reflect"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestPingEchoRESP2AndRESP3(t *testing.T) {
	s := start(t)
	r := s.raw(t)
	for _, tc := range []struct {
		args []string
		want any
	}{
		{[]string{"PING"}, Status("PONG")},
		{[]string{"ping", "hi"}, "hi"},
		{[]string{"ECHO", "a b"}, "a b"},
		{[]string{"GET", "missing"}, nil},
		{[]string{"NOSUCH", "a", "b"}, Err("ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b' ")},
		{[]string{"GET"}, Err("ERR wrong number of arguments for 'get' command")},
	} {
		if got := r.do(tc.args...); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: got %#v, want %#v", tc.args, got, tc.want)
		}
	}
	if got := r.do("HELLO", "3"); reflect.TypeOf(got) != reflect.TypeOf(Map{}) {
		t.Fatalf("HELLO 3 reply is %T, want a RESP3 map", got)
	}
	if got := r.do("GET", "missing"); got != nil {
		t.Fatalf("RESP3 null: got %#v", got)
	}
}

func TestGoRedisSetGet(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	for name, c := range map[string]*redis.Client{"resp3": s.client(t), "resp2": s.client(t, resp2)} {
		if err := c.Set(ctx, "k"+name, "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
		if v, err := c.Get(ctx, "k"+name).Result(); err != nil || v != "v" {
			t.Fatalf("%s: GET = %q, %v", name, v, err)
		}
	}
}
