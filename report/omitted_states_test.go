package report

import (
	"regexp"
	"strings"
	"testing"
)

// With --max-groups below the number of groups, the page still counts
// the states of every goroutine (the groups left out carry states too),
// and the summary's shares are of the dump's total, not of the groups
// listed: demo_go126.txt has 315 goroutines, 149 in the largest group
// (chan send), 70 in chan receive of which 6 are outside the 2 largest
// groups.
func TestMaxGroupsStatesOfTheWholeDump(t *testing.T) {
	inputs := readCorpus(t, "go/demo_go126.txt")
	want := map[string]int64{}
	for _, g := range inputs[0].Groups {
		for s, n := range g.States {
			want[s] += n
		}
	}
	page := writeReport(t, inputs, Options{MaxGroups: 2})
	in := pageData(t, page).Inputs[0]
	got := map[string]int64{}
	for _, g := range in.Groups {
		for _, s := range g.States {
			got[s.State] += s.Count
		}
	}
	for _, s := range in.OmittedStates {
		got[s.State] += s.Count
	}
	for s, n := range want {
		if got[s] != n {
			t.Errorf("state %q: %d in the page data, want %d", s, got[s], n)
		}
	}
	if want["chan send"] != 149 || want["chan receive"] != 70 || in.Total != 315 {
		t.Fatalf("fixture: %v in %d", want, in.Total)
	}

	dom := findBrowser(t).load(t, page, "", "")
	cards := regexp.MustCompile(`(?s)class="cards".*?class="facts"`).FindString(dom)
	for _, share := range []string{">47%<", ">chan send<", ">in the largest group<"} {
		if !strings.Contains(cards, share) {
			t.Errorf("summary cards do not show %q (149 of 315):\n%s", share, cards)
		}
	}
	if strings.Contains(cards, ">70%<") {
		t.Errorf("summary cards give a share of the 213 goroutines listed, not of the 315 in the dump:\n%s", cards)
	}
	if !strings.Contains(dom, "chan receive: 70 goroutines") {
		t.Error("the states chart does not count the 70 goroutines in chan receive")
	}
}
