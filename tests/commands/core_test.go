package commands

import (
	"context"
	"reflect"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

func TestPingEchoRESP2AndRESP3(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	for _, tc := range []struct {
		args []string
		want any
	}{
		{[]string{"PING"}, harness.Status("PONG")},
		{[]string{"ping", "hi"}, "hi"},
		{[]string{"ECHO", "a b"}, "a b"},
		{[]string{"GET", "missing"}, nil},
		{[]string{"NOSUCH", "a", "b"}, harness.Err("ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b' ")},
		{[]string{"GET"}, harness.Err("ERR wrong number of arguments for 'get' command")},
	} {
		if got := r.Do(tc.args...); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: got %#v, want %#v", tc.args, got, tc.want)
		}
	}
	if got := r.Do("HELLO", "3"); reflect.TypeOf(got) != reflect.TypeOf(harness.Map{}) {
		t.Fatalf("HELLO 3 reply is %T, want a RESP3 map", got)
	}
	if got := r.Do("GET", "missing"); got != nil {
		t.Fatalf("RESP3 null: got %#v", got)
	}
}

func TestGoRedisSetGet(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	for name, c := range map[string]*redis.Client{"resp3": s.Client(t), "resp2": s.Client(t, harness.Resp2)} {
		if err := c.Set(ctx, "k"+name, "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
		if v, err := c.Get(ctx, "k"+name).Result(); err != nil || v != "v" {
			t.Fatalf("%s: GET = %q, %v", name, v, err)
		}
	}
}
