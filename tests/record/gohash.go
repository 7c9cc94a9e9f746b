// A Go program for ember record's tests: crypto/sha256 in a loop, called
// from named functions (main.main -> main.worker -> main.hashLoop ->
// crypto/sha256.Sum256 -> ... -> crypto/sha256.block), for SECONDS
// (default 1).  Go binaries carry .debug_frame, not .eh_frame.
//
//	gohash [SECONDS]
package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"strconv"
	"time"
)

var sink byte

//go:noinline
func hashLoop(buf []byte, n int) {
	for i := 0; i < n; i++ {
		s := sha256.Sum256(buf)
		sink ^= s[0]
	}
}

//go:noinline
func worker(d time.Duration) {
	buf := make([]byte, 4096)
	t := time.Now()
	for time.Since(t) < d {
		hashLoop(buf, 64)
	}
}

func main() {
	secs := 1.0
	if len(os.Args) > 1 {
		secs, _ = strconv.ParseFloat(os.Args[1], 64)
	}
	worker(time.Duration(secs * float64(time.Second)))
	fmt.Println(sink)
}
