// Package commands implements the data commands, one file per family
// (strings.go, keys.go, ...). Each handler runs with its keys' shards already
// locked by the dispatcher (see cmdtable.Ctx) and imports only cmdtable,
// keyspace, resp and the value types it works on.
//
// # SORT
//
// SORT and SORT_RO (sort.go) follow Redis's sort.c step for step, since the steps show:
//
//   - Options are parsed first (a bad LIMIT number or an unknown word is
//     answered before the key is looked at), then the key: a list, set or
//     sorted set, a missing key sorting as an empty list.
//   - BY with a pattern that has no '*' (BY nosort) sorts nothing: a list
//     or sorted set keeps its order (reversed by DESC) and LIMIT picks a
//     range of it; a set keeps its own order, unless the result is stored
//     or a script asked, when it is sorted ALPHA instead (Redis does so to
//     keep replicas and scripts deterministic).
//   - Otherwise every element gets its weight (the element, or the BY key
//     or hash field), numbers being parsed as Redis 8's fast_float does,
//     and the whole collection is sorted: a stable sort, as glibc's qsort,
//     or, with BY and a LIMIT that leaves some out, Redis's own partial
//     quicksort (pqsort), so that equal weights come out where Redis puts
//     them. Numeric ties fall back to comparing the elements' bytes; ALPHA
//     compares bytes too, and as C strings (up to a NUL byte) unless
//     storing, as strcoll does in the C locale.
//   - GET patterns are looked up for the elements LIMIT selects, as the
//     reply is written; STORE writes a list (or deletes the destination
//     when the result is empty).
//
// BY and GET read keys that are not among the command's declared keys, so
// both commands lock the whole selected database (cmdtable.LockDB).
//
// Where Redis's order is not deterministic (a hashtable set's or a sorted
// set's internal order, which equal ALPHA BY weights keep), HotKV's is: a
// hashtable set enters the sort in byte order, a sorted set in its
// (score, member) order.
package commands
