package main

import (
	"os"
	"runtime"
	"runtime/pprof"
)

var sink []byte

//go:noinline
func leafA(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i % 7
	}
	return s
}

//go:noinline
func leafB(n int) int {
	s := 1
	for i := 0; i < n; i++ {
		s ^= s<<1 + i
	}
	return s
}

func inlined(n int) int { return leafA(n) + 1 }

//go:noinline
func middle(n int) int {
	return inlined(n) + leafB(n/2)
}

func main() {
	f, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(f)
	t := 0
	for i := 0; i < 400; i++ {
		t += middle(1000000)
		sink = make([]byte, 64<<10)
	}
	pprof.StopCPUProfile()
	f.Close()
	runtime.GC()
	h, _ := os.Create(os.Args[2])
	pprof.WriteHeapProfile(h)
	h.Close()
	if t == 42 {
		println(t)
	}
}
