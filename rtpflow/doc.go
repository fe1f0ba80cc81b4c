// Package rtpflow finds the RTP streams in the messages the demux classified as RTP and
// RTCP, and computes every per-stream and per-direction metric of DESIGN.md ("RTP
// streams"): counters, RFC 3550 loss, duplicates and reordering, jitter, clock rate, kind,
// RTX, header extensions, delay above baseline and lateness, bitrate series, ramp, and
// what RTCP said about each stream.
//
// It knows nothing of where the bytes came from: UDP datagrams and unframed TCP messages
// arrive as the same transport.Message, and arrival means m.Delivered, so media over TCP is
// measured at the time the application got it. Capture time comes in with each message;
// nothing here reads the clock.
//
// Shape. As in pion/interceptor, each algorithm is a small type in a file named after it,
// with its own table tests, and Stream.add hands every packet to them in turn, which reads
// as the list of what happens to a packet:
//
//   - continuity (continuity.go): sequence steps and payload type changes, for the stream
//     rule; the largest arrival gap;
//   - seqStats (seqstats.go, with the received-bit window of seqwindow.go): RFC 3550 A.1
//     extended sequence numbers, expected, lost, duplicates, reordered, A.1's resync on a
//     sender that restarts its numbers (restarts, timing.go's rebase), and the losses RTX
//     recovered;
//   - series (series.go): the 1-second series, where each packet's losses are put and a
//     late packet takes one back;
//   - extDetector (extdetector.go, twcc.go): RFC 8285 ids, abs-send-time by behaviour,
//     the sender's transport-wide sequence numbers;
//   - rtxMatcher (rtxmatcher.go): RFC 4588 votes and decision;
//   - the timing decision (timing.go: clock rate from hints, static types or inference,
//     clock.go), then Jitter (jitter.go) and delayStats (delaystats.go, on the
//     distributions of delaydist.go): transit, baseline, delay, lateness, per second.
//
// Counting and wire accounting stay in Stream (stream.go); Summary and Direction (summary.go,
// direction.go, ramp.go) read the parts at the end. RTCP is rtcpTracker (rtcp.go).
//
// Contract: Tracker.RTP takes a Packet made from the message and the header the demux
// decoded (PacketOf: nothing is decoded again), which refers to nothing of the message but
// its extension elements, so that the caller may copy those and hand the packet over to
// another goroutine; it allocates nothing per packet once its stream exists. Memory does
// not grow with the number of packets: per stream it is bounded by an 8 KiB sequence
// window, a delay window of at most ~200 KB, a 256-packet early buffer released once the
// clock rate and abs-send-time are decided, and a per-second series capped at 6 hours; the
// number of streams is bounded by Config.MaxStreams (candidates that never qualify are
// evicted; beyond the cap new streams are counted, not tracked).
//
// Decisions where DESIGN.md leaves a choice (each detailed at its type or function):
//
//   - Baseline: not the stream's smallest transit (one anomaly made the rest late) but, per
//     sample, the larger of the smallest transits in the 5 s before and after it
//     (baseline.go): a delay that ends counts, a step that stays is a new level. Samples:
//     every packet with abs-send-time; on RTP timestamps one per frame, B-frames, RFC 4733
//     events and comfort noise left out (delaystats.go, frameStart). Delays go into a
//     0.1 ms-bin window plus a log histogram (delayDist).
//   - Series: one 1-second grid per call direction (Path.Src to Path.Dst), anchored at its
//     first media packet (DESIGN); a stream's series starts at the grid second of its first
//     packet, stops at a jump of more than an hour, and is capped at 6 hours.
//   - Qualification: MinPackets packets, 80% of the steps continuing, half forward, payload
//     type stable (continuity.continuing).
//   - RTX: a stream that SDP names RTX (ssrc-group:FID, or apt= on its payload type:
//     HintFID, Hint), else a stream of the same sender whose first 16 payload-bearing
//     packets mostly carry original sequence numbers in another stream's recent range,
//     else (SRTP: the OSNs are encrypted) mostly timestamps another stream just sent; its
//     repairs then are packets of frames with a hole, or that answer a NACK
//     (rtxmatcher.go, nackledger.go).
//   - Ramp: 3-second trailing moving average, t as the second's offset (Ramp).
//   - Rates over an active time (mean bitrate, goodput, wire rate, and the ramp with them):
//     null when the packets span less than 20 ms or average less than 100 µs apart
//     (RateSpan, rate.go); the 1-second series divide by their step and always count.
//
// Use:
//
//	t := rtpflow.NewTracker(rtpflow.Config{})
//	var pk rtpflow.Packet
//	for each message m of path p, classified by a demux.Classifier c {
//		if isRTP { rtpflow.PacketOf(&pk, p, m, c.RTP()); t.RTP(&pk) } else { t.RTCP(p, m) }
//	}
//	for _, s := range t.Streams() {
//		st := s.Summary(t0) // fill ID, Leg, Direction
//	}
//	dm := t.Direction(streamsOfOneDirection, t0)
package rtpflow
