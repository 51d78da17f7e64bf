package formats

// AppendIDList appends sorted ids as the group text does: runs of three or
// more as ranges ("5, 7, 9-120"), at most limit items, then how many ids
// were left out here or by the grouping (more): "…, 200, … (+1100 more)".
// For reports outside this package that list a group's members.
func AppendIDList(b []byte, ids []int64, more int64, limit int) []byte {
	return appendGroupIDList(b, ids, more, limit)
}
