package report

// ICE is what the capture shows of ICE connectivity checks: counts, the round trip of the
// checks this host sent (per leg in RTTLegs), usernames and nominated pairs.
type ICE struct {
	Checks    int64      `json:"checks"`
	Successes int64      `json:"successes"`
	Failures  int64      `json:"failures"`
	RTTMS     *Quantiles `json:"rtt_ms"`
	Ufrags    []string   `json:"ufrags"`
	Nominated []string   `json:"nominated"`
	// RTTLegs splits the round trips by the leg they cover (RTTMS is every leg but
	// "unknown"): only checks that left this host, or its relay, measure a round trip.
	RTTLegs []ICERTTLeg `json:"rtt_legs"`
	// ConnectivityChecks and ConnectivitySuccesses are the Binding requests that carried an
	// ICE USERNAME, and their successes: Checks and Successes less a STUN server's address
	// lookups. Not in the JSON (whose checks count every Binding request): ice_failed's.
	ConnectivityChecks, ConnectivitySuccesses int64 `json:"-"`
}

// ICERTTLeg is the round trips of the ICE checks that covered one leg: host_peer (this host
// to the peer and back), host_relay_peer (through this host's TURN relay), relay_peer and
// relay_client (at a TURN server, the relay to the peer, or the server to the client, and
// back), forwarded (a forwarder seen on both sides, to the responder and back), unknown (the
// capture cannot tell who sent the checks: not in rtt_ms).
type ICERTTLeg struct {
	Leg   string     `json:"leg"`
	RTTMS *Quantiles `json:"rtt_ms"`
}

type TURN struct {
	Allocations []Allocation `json:"allocations"`
	Errors      []TURNError  `json:"errors"`
}

type Allocation struct {
	Server      string    `json:"server"`
	Client      string    `json:"client"`
	Transport   string    `json:"transport"`
	Relayed     *string   `json:"relayed"`
	LifetimeS   *float64  `json:"lifetime_s"`
	Permissions int       `json:"permissions"`
	Channels    []Channel `json:"channels"`
}

type Channel struct {
	Number int    `json:"number"`
	Peer   string `json:"peer"`
}

type TURNError struct {
	Code  int   `json:"code"`
	Count int64 `json:"count"`
	// Clients are the transport addresses the server sent this code to (at most
	// MaxTURNErrorClients), so that a finding names the calls it refused.
	Clients []string `json:"clients"`
}

// MaxTURNErrorClients bounds TURNError.Clients.
const MaxTURNErrorClients = 16
