package codec

import "strconv"

// MaxCount bounds the count of one record that a reader accepts (2^40,
// about 1.1 trillion goroutines: each needs at least a 2 KiB stack, so a
// real process holds far fewer), and maxTotal the total of one dump. A
// count above either is saturated with a warning naming its line or
// sample, so that sums of counts (a dump's total, grouping, percentages,
// totals in every format) neither overflow nor turn negative: reaching
// maxTotal takes four million saturated records.
const (
	MaxCount = 1 << 40
	MaxTotal = 1 << 62
)

// BoundCount returns count saturated to maxCount and to what is left of
// maxTotal after sum, and whether it had to be.
func BoundCount(sum, count int64) (int64, bool) {
	kept := min(count, MaxCount, max(MaxTotal-max(sum, 0), 0))
	return kept, kept != count
}

// CountTooLarge is the warning about a count boundCount saturated.
func CountTooLarge(what string, count, kept int64) string {
	return what + " " + strconv.FormatInt(count, 10) + " is above the bound of " +
		strconv.FormatInt(MaxCount, 10) + " routines; counted as " + strconv.FormatInt(kept, 10)
}
