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
	// Both ends relayed by one server: l6's peer is l7's relayed address and l7's peer
	// l6's, and l8 runs between the two relayed addresses. Given in an order that meets the
	// second allocation before the leg that joins them.
	ra, rb := "203.0.113.7:50100", "203.0.113.7:50200"
	c = &Capture{Legs: []Leg{
		{ID: "l6", Transport: TransportTURNTCP, Client: "10.0.0.3:40000", Server: "203.0.113.7:443", Relayed: &ra, Peers: []string{rb}},
		{ID: "l7", Transport: TransportTURNUDP, Client: "10.0.0.4:40000", Server: "203.0.113.7:3478", Relayed: &rb},
		{ID: "l9", Transport: TransportUDP, Client: "10.0.0.1:5000", Server: "10.0.0.9:6000"},
		{ID: "l8", Transport: TransportUDP, Client: ra, Server: rb, Relayed: &rb, Peers: []string{ra}},
	}}
	want = [][]string{{"l6", "l7", "l8"}, {"l9"}}
	if d := cmp.Diff(want, Calls(c)); d != "" {
		t.Errorf("Calls, both ends relayed (-want +got):\n%s", d)
	}
	if got := Calls(&Capture{}); len(got) != 0 {
		t.Errorf("Calls of a capture without legs = %q, want none", got)
	}
}
