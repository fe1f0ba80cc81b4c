package analysis

import (
	"testing"
	"time"
)

// TestRecv holds recv to a channel receive: values in order, false once the channel is
// closed or done is, and a value sent long after the spin gave up (a slow pipe) still
// received by the parked goroutine; a wait that parked halves the spin, one that did not
// doubles it.
func TestRecv(t *testing.T) {
	var w waiter
	ch := make(chan int, 2)
	ch <- 1
	ch <- 2
	for want := 1; want <= 2; want++ {
		if v, ok := recv(&w, ch, nil); !ok || v != want {
			t.Fatalf("recv = %d, %v; want %d, true", v, ok, want)
		}
	}
	go func() {
		time.Sleep(50 * spinMax) // far beyond the spin, even on a loaded machine
		ch <- 3
		close(ch)
	}()
	if v, ok := recv(&w, ch, nil); !ok || v != 3 {
		t.Fatalf("recv after a long wait = %d, %v; want 3, true", v, ok)
	}
	if w.spin != spinMax/2 {
		t.Fatalf("after a wait that parked, spin = %v; want %v", w.spin, spinMax/2)
	}
	if v, ok := recv(&w, ch, nil); ok || v != 0 {
		t.Fatalf("recv on a closed channel = %d, %v; want 0, false", v, ok)
	}
	if w.spin != spinMax {
		t.Fatalf("after a wait that did not park, spin = %v; want %v", w.spin, spinMax)
	}
	// done while spinning, and after the spin gave up.
	for _, after := range []time.Duration{spinMin / 2, 3 * spinMax} {
		done := make(chan struct{})
		go func() {
			time.Sleep(after)
			close(done)
		}()
		if v, ok := recv(&w, make(chan int), done); ok || v != 0 {
			t.Fatalf("recv when done after %v = %d, %v; want 0, false", after, v, ok)
		}
	}
}
