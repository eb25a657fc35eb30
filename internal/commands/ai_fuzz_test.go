package commands

import (
	"bytes"
	"testing"
)

// FuzzAIArgs feeds argument lists to the AI-layer parsers (PCACHE, SCACHE,
// AMEM): none may panic, and a parse without error has what the command
// needs.
func FuzzAIArgs(f *testing.F) {
	for _, s := range []string{
		"p r VALUES 3 1 0 0 ATTRS {} EX 10",
		"VALUES 2 1 1 THRESHOLD 0.2 FILTER .a==1 PROMPT p EF 10 NOREFRESH",
		"text FP32 abcd KIND working SESSION s IMPORTANCE 0.5 DEDUP OFF AT 5 PX 3",
		"VALUES 1 1 K 3 WEIGHTS 1 0 0 HALFLIFE 2.5 KIND semantic FILTER (.x CANDIDATES 9 NOTOUCH",
		"prompt MODEL m PARAMS 2 a 1 b 2",
		"VALUES 99999999999 1",
		"p PARAMS 1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := bytes.Fields([]byte(s))
		if len(args) >= 2 {
			if st, msg := parseSemStore(args); msg == "" && len(st.Vector) == 0 {
				t.Fatal("SCACHE.STORE parsed without a vector")
			}
		}
		if q, msg := parseSemLookup(args); msg == "" && len(q.Vector) == 0 {
			t.Fatal("SCACHE.LOOKUP parsed without a vector")
		}
		if r, msg := parseRecall(args); msg == "" && (len(r.Vector) == 0 || r.K < 1) {
			t.Fatal("AMEM.RECALL parsed without a vector or K")
		}
		if len(args) >= 1 {
			if a, msg := parseMemAdd(args); msg == "" && (len(a.Vector) == 0 || a.Kind > 2) {
				t.Fatal("AMEM.ADD parsed without a vector or with a bad kind")
			}
			parsePromptArgs(args)
		}
	})
}
