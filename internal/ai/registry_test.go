package ai

import (
	"slices"
	"testing"
)

// Replace swaps a replica's namespaces while clients read them: each read
// sees the old registry or the new one (go test -race checks the
// accessors, which are handed the maps before they lock).
func TestReplaceUnderReaders(t *testing.T) {
	r, o := NewRegistry(), NewRegistry()
	if r.CreatePrompt("old", PromptOptions{}) != nil || o.CreatePrompt("new", PromptOptions{}) != nil {
		t.Fatal("CreatePrompt")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 1000 {
			r.Prompt("old")
			r.Prompt("new")
			r.DropSem("x")
		}
	}()
	r.Replace(o)
	<-done
	if got := r.PromptNames(); !slices.Equal(got, []string{"new"}) {
		t.Fatalf("after Replace: %v", got)
	}
	if got := o.PromptNames(); len(got) != 0 {
		t.Fatalf("the source after Replace: %v", got)
	}
}
