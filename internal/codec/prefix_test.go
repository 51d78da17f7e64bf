package codec

import "testing"

func TestLinePrefixMatch(t *testing.T) {
	var p LinePrefix
	p.Set([]byte("Nov 30 10:00:00 host app[123]: "))
	for line, want := range map[string]int{
		"Nov 30 10:00:00 host app[123]: x":   31,
		"Nov  1 09:59:59 host app[123]: x":   31,
		"Nov 30 10:00:00 host app[123]:   x": 31,
		"Nov 30 10:00:00 host sshd[9]: x":    0,
		"goroutine 1 [running]:":             0,
	} {
		if got := p.Match([]byte(line)); got != want {
			t.Errorf("match(%q) = %d, want %d", line, got, want)
		}
	}
}
