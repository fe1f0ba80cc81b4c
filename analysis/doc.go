// Package analysis drives one capture through the pipeline (capture → tcpframe → demux →
// rtpflow) and builds its report.Capture: flows, legs, call directions with their wire
// accounting, ICE and TURN, and the findings. It knows nothing of how the report is rendered.
//
//	c, err := analysis.Analyze(ctx, "call.pcap", f, analysis.Options{})
//
// Analyze reads the capture once, in order, with memory bounded by the number of flows and
// streams (each capped), not by the number of packets. Three goroutines share the work:
// reading and decoding (pipeline.go), the flows, TCP and demultiplexing (analyze.go), and
// the RTP analysis (media.go); each hands the next its work in batches, in order, so the
// report is the same as if one goroutine did it all.
package analysis
