// Package multiwriter holds the tests of several writers sharing one
// primary-key bucket (issue 11, part 2): whatever the number of writers
// (goroutines, OS processes) and merge engine, the visible rows equal the
// commits applied one after another in snapshot order, before and after any
// compaction; and dynamic-bucket tables (issue 13), whose writers assign keys
// to buckets independently: each key must end in exactly one bucket, its
// rows and its index hash alike; and committers beside automatic
// expiration (TestWritersWithExpiration: no acknowledged commit lost to a
// snapshot id an expiration freed). The package has no API; everything is in its test files,
// including the worker program the multi-process tests start (the test binary
// itself, re-executed with MULTIWRITER_WORKER set).
package multiwriter
