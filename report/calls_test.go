package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCalls(t *testing.T) {
	relayed := "203.0.113.7:50012"
	c := &Capture{Legs: []Leg{
		{ID: "l1", Transport: TransportUDP, Client: "10.0.0.1:5000", Server: "10.0.0.9:6000"},
		// At a TURN server: the client's leg, and the relay's leg to the peer, either way round.
		{ID: "l2", Transport: TransportTURNTCP, Client: "10.0.0.2:40000", Server: "203.0.113.7:443", Relayed: &relayed},
		{ID: "l3", Transport: TransportUDP, Client: "10.0.0.1:5002", Server: "10.0.0.9:6002"},
		{ID: "l4", Transport: TransportUDP, Client: "198.51.100.9:61000", Server: relayed},
		{ID: "l5", Transport: TransportUDP, Client: relayed, Server: "198.51.100.10:61000"},
	}}
	want := [][]string{{"l1"}, {"l2", "l4", "l5"}, {"l3"}}
	if d := cmp.Diff(want, Calls(c)); d != "" {
		t.Errorf("Calls (-want +got):\n%s", d)
	}
	if got := Calls(&Capture{}); len(got) != 0 {
		t.Errorf("Calls of a capture without legs = %q, want none", got)
	}
}
