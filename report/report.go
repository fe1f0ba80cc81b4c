package report

// Schema names this JSON contract; it changes only when a field changes meaning.
const Schema = "callpcap.report/v1"

// Report is the whole output of one run: one Capture per input file.
type Report struct {
	Schema     string      `json:"schema"`
	Tool       Tool        `json:"tool"`
	Options    Options     `json:"options"`
	Captures   []Capture   `json:"captures"`
	Comparison *Comparison `json:"comparison"`
}

type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type Options struct {
	LateBudgetMS   float64  `json:"late_budget_ms"`
	RampTargetKbps *float64 `json:"ramp_target_kbps"`
	MinPackets     int      `json:"min_packets"`
}

// Capture is the analysis of one file. A file that could not be read has only File and Error.
type Capture struct {
	File  string `json:"file"`
	Error string `json:"error,omitempty"`

	Format             string      `json:"format,omitempty"`      // pcap | pcapng
	Compression        string      `json:"compression,omitempty"` // none | gzip | zstd
	LinkTypes          []string    `json:"link_types"`
	Packets            int64       `json:"packets"`
	WireBytes          int64       `json:"wire_bytes"`
	Start              *string     `json:"start"`       // RFC 3339 UTC with microseconds; null without packets
	DurationS          *float64    `json:"duration_s"`  // null without packets: there is no span to measure
	ClockJumps         int64       `json:"clock_jumps"` // corrupt time stamps and steps in the clock, left out of duration_s
	SnappedPackets     int64       `json:"snapped_packets"`
	UndecodablePackets int64       `json:"undecodable_packets"`
	CaptureDuplicates  int64       `json:"capture_duplicates"`
	InterfaceDrops     *int64      `json:"interface_drops"`
	Truncated          bool        `json:"truncated"`
	Interrupted        bool        `json:"interrupted"` // the read was stopped (SIGINT, SIGTERM): the report covers what came before
	Warnings           []string    `json:"warnings"`
	Flows              []Flow      `json:"flows"`
	OtherFlows         int64       `json:"other_flows"`      // flows with nothing real-time in them, not listed
	OtherFlowBytes     int64       `json:"other_flow_bytes"` // the wire bytes of those flows
	Legs               []Leg       `json:"legs"`
	Streams            []Stream    `json:"streams"`
	Directions         []Direction `json:"directions"`
	ICE                ICE         `json:"ice"`
	TURN               TURN        `json:"turn"`
	Findings           []Finding   `json:"findings"`
}

// Flow is one UDP 5-tuple or TCP connection, both directions; A is the side seen first.
type Flow struct {
	ID        string   `json:"id"`
	Proto     string   `json:"proto"` // udp | tcp
	A         string   `json:"a"`
	B         string   `json:"b"`
	FirstS    float64  `json:"first_s"`
	LastS     float64  `json:"last_s"`
	Packets   int64    `json:"packets"`
	WireBytes int64    `json:"wire_bytes"`
	Content   []string `json:"content"`           // stun, channeldata, rtp, rtcp, dtls, quic, zrtp, other
	Framing   *Framing `json:"framing,omitempty"` // TCP only
	TCP       *FlowTCP `json:"tcp"`               // null for UDP
}

type FlowTCP struct {
	HandshakeRTTMS *float64 `json:"handshake_rtt_ms"`
	AToB           TCPDir   `json:"a_to_b"`
	BToA           TCPDir   `json:"b_to_a"`
}

// TCPDir is one direction of a TCP connection.
type TCPDir struct {
	Vantage               Vantage `json:"vantage"`
	Segments              int64   `json:"segments"`
	DataSegments          int64   `json:"data_segments"`
	PureAcks              int64   `json:"pure_acks"`
	WireBytes             int64   `json:"wire_bytes"`
	PayloadBytes          int64   `json:"payload_bytes"`
	StreamBytes           int64   `json:"stream_bytes"`
	RetransmittedSegments int64   `json:"retransmitted_segments"`
	RetransmittedBytes    int64   `json:"retransmitted_bytes"`
	// SpuriousRetransmittedBytes is null when the direction retransmitted and its peer's
	// ACKs were never captured: nothing says what the peer already had.
	SpuriousRetransmittedBytes *int64       `json:"spurious_retransmitted_bytes"`
	UselessRetransmittedBytes  int64        `json:"useless_retransmitted_bytes"`
	CaptureGapBytes            int64        `json:"capture_gap_bytes"`
	OutOfOrderSegments         int64        `json:"out_of_order_segments"`
	ZeroWindowProbes           int64        `json:"zero_window_probes"`
	Keepalives                 int64        `json:"keepalives"`
	RTTMS                      *Quantiles   `json:"rtt_ms"`
	Messages                   int64        `json:"messages"`
	FramingBytes               int64        `json:"framing_bytes"`
	ResyncSkippedBytes         int64        `json:"resync_skipped_bytes"`
	HOLDelayedMessages         int64        `json:"hol_delayed_messages"`
	HOLDelayMS                 *Quantiles   `json:"hol_delay_ms"`
	WindowStalls               WindowStalls `json:"window_stalls"`
}

// WindowStalls counts the times the receiver's advertised window stopped this direction's
// sender: a zero window, or its bytes in flight reaching the window to within a segment,
// until a window update opened it. LongestMS is null without a stall.
type WindowStalls struct {
	Count     int64    `json:"count"`
	LongestMS *float64 `json:"longest_ms"`
}

// Quantiles summarises a distribution; percentiles come from a histogram with at most 1%
// relative error. Min and Max are exact.
type Quantiles struct {
	Samples int64   `json:"samples"`
	Min     float64 `json:"min"`
	P50     float64 `json:"p50"`
	P95     float64 `json:"p95"`
	P99     float64 `json:"p99"`
	Max     float64 `json:"max"`
}

// Leg is a path media took between two transport addresses, with its transport:
// udp, turn-udp, turn-tcp, turn-tls, ice-tcp, tcp or tls.
type Leg struct {
	ID        string    `json:"id"`
	Transport Transport `json:"transport"`
	Client    string    `json:"client"`
	Server    string    `json:"server"`
	Relayed   *string   `json:"relayed"`
	Peers     []string  `json:"peers"`
	Flows     []string  `json:"flows"`
}

// Stream is one SSRC seen in one direction of one leg.
type Stream struct {
	ID                string     `json:"id"`
	Leg               string     `json:"leg"`
	Direction         string     `json:"direction"`
	Src               string     `json:"src"`
	Dst               string     `json:"dst"`
	SSRC              string     `json:"ssrc"` // 0x%08x
	PayloadType       int        `json:"payload_type"`
	Kind              string     `json:"kind"` // audio | video | rtx | fec | event | comfort_noise | unknown
	Codec             *string    `json:"codec"`
	ClockRate         *int       `json:"clock_rate"`
	ClockRateInferred bool       `json:"clock_rate_inferred"`
	RTXOf             *string    `json:"rtx_of"`
	FirstS            float64    `json:"first_s"`
	LastS             float64    `json:"last_s"`
	Packets           int64      `json:"packets"`
	PayloadBytes      int64      `json:"payload_bytes"`
	HeaderBytes       int64      `json:"header_bytes"`
	PaddingBytes      *int64     `json:"padding_bytes"`   // null when a count was unreadable (SRTP, RFC 3711 3.1) or cut by the snap length: then in PayloadBytes
	PaddingPackets    *int64     `json:"padding_packets"` // null with PaddingBytes
	PaddedPackets     int64      `json:"padded_packets"`
	Markers           int64      `json:"markers"`
	Expected          int64      `json:"expected"`
	Lost              *int64     `json:"lost"`
	LossPct           *float64   `json:"loss_pct"`
	Duplicates        int64      `json:"duplicates"`
	Reordered         int64      `json:"reordered"`
	Restarts          int64      `json:"restarts"` // RFC 3550 A.1: the sender restarted its sequence numbers
	RecoveredByRTX    *int64     `json:"recovered_by_rtx,omitempty"`
	RTX               *RTX       `json:"rtx,omitempty"`      // only for an RTX stream
	DroppedBeforeTCP  *int64     `json:"dropped_before_tcp"` // null for an RTX stream (lost null); a loss across a capture gap is not one
	JitterMS          *Jitter    `json:"jitter_ms"`
	MaxGapMS          *float64   `json:"max_gap_ms"`
	Extensions        Extensions `json:"extensions"`
	DelayMS           *Delay     `json:"delay_ms"`
	Late              *Late      `json:"late"`
	Bitrate           Bitrate    `json:"bitrate"`
	RTCP              *RTCP      `json:"rtcp"`
}

// RTX is what an RTX stream (RFC 4588) carried for its media stream: every packet is a
// repair or a probe. A repair resends a sequence number the media stream had not received
// when it came (lost) or that the receiver had NACKed; a probe is any other packet:
// padding-only, or resending a packet the media stream had (libwebrtc probes bandwidth so).
type RTX struct {
	MediaSSRC string   `json:"media_ssrc"` // 0x%08x, as rtx_of
	MatchedBy RTXMatch `json:"matched_by"`
	Repairs   int64    `json:"repairs"`
	Probes    int64    `json:"probes"`
}

// RTXMatch is how an RTX stream was matched to its media stream, which also says what its
// repairs mean (schema.json).
type RTXMatch string

const (
	RTXBySDP       RTXMatch = "sdp"       // ssrc-group:FID or apt= in SDP the capture carried
	RTXByOSN       RTXMatch = "osn"       // original sequence numbers in clear payloads
	RTXByTimestamp RTXMatch = "timestamp" // original timestamps, the OSNs being encrypted (SRTP)
)

type Jitter struct {
	Mean float64 `json:"mean"`
	Max  float64 `json:"max"`
	Last float64 `json:"last"`
}

type Extensions struct {
	IDs            []int `json:"ids"`
	AbsSendTimeID  *int  `json:"abs_send_time_id"`
	TransportCCID  *int  `json:"transport_cc_id"`
	TwoByteHeaders bool  `json:"two_byte_headers,omitempty"`
	// Encrypted: some packets' extensions were encrypted whole (cryptex, RFC 9335): IDs
	// lists only those read elsewhere, and neither extension could be found in them.
	Encrypted bool `json:"encrypted,omitempty"`
}

// Delay is the delay above the stream's baseline transit, in milliseconds.
type Delay struct {
	Reference string `json:"reference,omitempty"` // abs_send_time | rtp_timestamp
	// Vantage is "sender" when the capture was taken at the media's sender over UDP (its
	// source is one of the capture host's ICE endpoints): the delay is then the sender's own
	// queueing before the packets left, not their journey, and no packet is counted late.
	// Omitted otherwise (over TCP the receiver's delivery is estimated from the ACKs).
	Vantage string  `json:"vantage,omitempty"`
	Samples int64   `json:"samples"`
	Min     float64 `json:"min"`
	P50     float64 `json:"p50"`
	P95     float64 `json:"p95"`
	P99     float64 `json:"p99"`
	Max     float64 `json:"max"`
}

// AtSender says whether d was measured at the media's sender (Vantage): the sender's own
// queueing, no path's delay. False for a nil d.
func (d *Delay) AtSender() bool { return d != nil && d.Vantage == string(VantageSender) }

// Late counts packets whose delay above baseline exceeded the budget; OverMS counts them at
// other thresholds ("50", "100", "200", "400", "1000") so a reader can pick another budget.
type Late struct {
	BudgetMS   float64          `json:"budget_ms"`
	Packets    int64            `json:"packets"`
	Pct        float64          `json:"pct"`
	HOLBlocked int64            `json:"hol_blocked"`
	OverMS     map[string]int64 `json:"over_ms,omitempty"`
	// Causes splits the late packets that came over TCP by what held them up; absent when
	// none of the media came over TCP.
	Causes *LateCauses `json:"causes,omitempty"`
}

// LateCauses is what held up late packets over TCP, each counted once: Retransmission
// (it waited in order behind a retransmission, the hol_blocked packets, or its own bytes
// were retransmitted), Window (sent while the receiver's window was full, or within the
// late budget after it opened), Backlog (the rest: queued at the sender for no reason the
// connection shows). Late packets that came over UDP are in none of them.
type LateCauses struct {
	Retransmission int64 `json:"retransmission"`
	Window         int64 `json:"window"`
	Backlog        int64 `json:"backlog"`
}

// Bitrate is a stream's media bitrate. MeanKbps is null when the stream's packets span too
// little time to measure a rate (a burst, stripped capture times); the series divides by
// its 1-second step and is always set.
type Bitrate struct {
	MeanKbps   *float64  `json:"mean_kbps"`
	SeriesKbps []float64 `json:"series_kbps"`
}

// RTCP is what the RTCP about one stream says: counts per packet type always, and the
// reported figures when the RTCP was readable (not SRTCP).
type RTCP struct {
	Packets        int64            `json:"packets"`
	Encrypted      bool             `json:"encrypted"`
	Types          map[string]int64 `json:"types"` // sr, rr, sdes, bye, app, nack, pli, fir, remb, twcc, xr, other
	RTTMS          *Quantiles       `json:"rtt_ms"`
	FractionLost   *float64         `json:"fraction_lost_pct"` // last reported by the receiver, 0-100
	CumulativeLost *int64           `json:"cumulative_lost"`   // last reported by the receiver
	// The loss the receiver reported during the capture, and the packets it expected: the
	// growth of its cumulative lost and of its extended highest sequence number from its
	// first report block in the capture to its last. A capture at the sender, or anywhere
	// before the loss, sees none of it in the RTP. The receiver is the first to report on
	// the stream (the other figures here are its too); null when its extended highest
	// sequence number went down (a restart, or reports out of order).
	ReportedLost     *int64   `json:"reported_lost"`
	ReportedExpected *int64   `json:"reported_expected"`
	JitterMS         *float64 `json:"jitter_ms"`      // last reported by the receiver
	NACKedPackets    *int64   `json:"nacked_packets"` // null when SRTCP hides the NACKs' lists (RFC 3711 3.4)
	PLI              int64    `json:"pli"`
	FIR              int64    `json:"fir"`
	REMBKbps         *float64 `json:"remb_kbps"` // last REMB estimate
}

// Direction is the media from one endpoint to the other.
type Direction struct {
	ID                  string    `json:"id"`
	From                string    `json:"from"`
	To                  string    `json:"to"`
	Legs                []string  `json:"legs"`
	Transport           Transport `json:"transport"`
	Streams             []string  `json:"streams"`
	MediaPackets        int64     `json:"media_packets"`
	MediaPayloadBytes   int64     `json:"media_payload_bytes"`
	GoodputKbps         *float64  `json:"goodput_kbps"` // null (and WireKbps, Ramp) when the active time is too short to measure a rate
	WireBytes           int64     `json:"wire_bytes"`
	WireKbps            *float64  `json:"wire_kbps"`
	Efficiency          *float64  `json:"efficiency"`
	OverheadBytes       Overhead  `json:"overhead_bytes"`
	Loss                Loss      `json:"loss"`
	Late                *Late     `json:"late"`
	DelayMS             *Delay    `json:"delay_ms"`
	TCPRetransmittedPct *float64  `json:"tcp_retransmitted_pct"`
	Ramp                *Ramp     `json:"ramp"`
	Series              Series    `json:"series"`
	Relay               *Relay    `json:"relay"`
	ActiveS             float64   `json:"active_s"`
	FirstS              float64   `json:"first_s"`
	LastS               float64   `json:"last_s"`
}

// Overhead splits wire_bytes − media_payload_bytes exactly.
type Overhead struct {
	LinkIPTransport    int64 `json:"link_ip_transport"`
	Framing            int64 `json:"framing"`
	RTPHeaders         int64 `json:"rtp_headers"`
	Padding            int64 `json:"padding"`
	RTX                int64 `json:"rtx"`
	TCPRetransmissions int64 `json:"tcp_retransmissions"`
	ACKs               int64 `json:"acks"`
	RTCP               int64 `json:"rtcp"`
	STUN               int64 `json:"stun"`
	Other              int64 `json:"other"` // RTP duplicates, RTP of SSRCs that are no stream, what the snap length cut, ...
}

// Sum returns the total of every part.
func (o Overhead) Sum() int64 {
	return o.LinkIPTransport + o.Framing + o.RTPHeaders + o.Padding + o.RTX +
		o.TCPRetransmissions + o.ACKs + o.RTCP + o.STUN + o.Other
}

type Loss struct {
	Expected         int64    `json:"expected"`
	Lost             int64    `json:"lost"`
	Pct              *float64 `json:"pct"`
	DroppedBeforeTCP *int64   `json:"dropped_before_tcp"` // null when a media stream's is
	RecoveredByRTX   int64    `json:"recovered_by_rtx"`
}

// RampTarget says where a ramp's target came from.
type RampTarget string

const (
	TargetFromPlateau RampTarget = "plateau" // the measured plateau
	TargetFromOption  RampTarget = "option"  // --ramp-target
)

// Ramp says how fast the media bitrate reached its target and whether it then held.
type Ramp struct {
	TargetKbps   float64    `json:"target_kbps"`
	TargetSource RampTarget `json:"target_source"`
	PlateauKbps  float64    `json:"plateau_kbps"`
	T50S         *float64   `json:"t50_s"`
	T90S         *float64   `json:"t90_s"`
	Stable       *bool      `json:"stable"`
	CVAfterT90   *float64   `json:"cv_after_t90"`
}

// Series are per-second values from T0S (seconds since the capture's first packet).
// A nil entry in the delay and late series is a second without a delay sample: lateness
// is judged against the delay, as the direction's late and delay_ms are, and a second, or a
// stream, that has no delay (its packets span too little time, or its clock is unknown)
// judged nothing.
type Series struct {
	T0S               float64    `json:"t0_s"`
	StepS             float64    `json:"step_s"`
	MediaKbps         []float64  `json:"media_kbps"`
	WireKbps          []float64  `json:"wire_kbps"` // every frame attributed to the direction, as wire_bytes (the schema says what is left out)
	RTXKbps           []float64  `json:"rtx_kbps"`
	Lost              []int64    `json:"lost"`
	Late              []*int64   `json:"late"` // nil in a second without a delay sample, or everywhere at the sender
	RetransmittedKbps []float64  `json:"retransmitted_kbps"`
	DelayP50MS        []*float64 `json:"delay_p50_ms"`
	DelayMaxMS        []*float64 `json:"delay_max_ms"`
	RTTMS             RTTSeries  `json:"rtt_ms"`
}

// RTTSeries is the round-trip time of a direction's path per second, one series per source:
// the median of that source's samples in the second, nil in a second without one, empty
// when the source measured nothing in the direction's seconds. The samples are those of the
// summaries: ICE checks this host (or its relay) sent, on the direction's legs (ice.rtt_ms);
// data/ACK round trips of the direction's TCP legs in a TCP direction captured at its
// sender (a TCP direction's rtt_ms); RTCP receiver-report round trips about the direction's
// streams (a stream's rtcp.rtt_ms). A round trip is a property of the path: both call
// directions over a leg show its ICE and TCP round trips.
type RTTSeries struct {
	ICE  []*float64 `json:"ice"`
	TCP  []*float64 `json:"tcp"`
	RTCP []*float64 `json:"rtcp"`
}

// Relay is the two-leg correlation at a TURN server capture.
type Relay struct {
	Matched         int64      `json:"matched"`
	LatencyMS       *Quantiles `json:"latency_ms"`
	LostBeforeRelay int64      `json:"lost_before_relay"`
	LostAfterRelay  int64      `json:"lost_after_relay"`
}

// Finding is one diagnosis: a stable code, a severity (info, warn, bad) and one sentence.
// There is one finding per cause: what the cause did (its symptoms) are its Figures, not
// findings of their own. Legs and Directions name the call it is about, so that a capture of
// several calls (a TURN server's) says which one; both are empty for a finding about the
// whole capture.
type Finding struct {
	Code       FindingCode        `json:"code"`
	Severity   Severity           `json:"severity"`
	Text       string             `json:"text"`
	Legs       []string           `json:"legs"`
	Directions []string           `json:"directions"`
	Figures    map[string]float64 `json:"figures"`
}

// Comparison sets several captures side by side, one entry per capture and direction.
type Comparison struct {
	Entries []ComparisonEntry `json:"entries"`
}

type ComparisonEntry struct {
	File                string    `json:"file"`
	Direction           string    `json:"direction"`
	Transport           Transport `json:"transport"`
	GoodputKbps         *float64  `json:"goodput_kbps"`
	WireKbps            *float64  `json:"wire_kbps"`
	Efficiency          *float64  `json:"efficiency"`
	T50S                *float64  `json:"t50_s"`
	T90S                *float64  `json:"t90_s"`
	Stable              *bool     `json:"stable"`
	RTPLossPct          *float64  `json:"rtp_loss_pct"`
	TCPRetransmittedPct *float64  `json:"tcp_retransmitted_pct"`
	LatePackets         *int64    `json:"late_packets"`
	LatePct             *float64  `json:"late_pct"`
	DelayP95MS          *float64  `json:"delay_p95_ms"`
}
