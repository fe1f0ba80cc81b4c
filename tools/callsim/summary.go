package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
)

type rtpStats struct {
	Kind                     string   `json:"kind"`
	SSRC                     uint32   `json:"ssrc"`
	BytesSent                float64  `json:"bytesSent"`
	PacketsSent              float64  `json:"packetsSent"`
	RetransmittedPacketsSent float64  `json:"retransmittedPacketsSent"`
	RetransmittedBytesSent   float64  `json:"retransmittedBytesSent"`
	NackCount                float64  `json:"nackCount"`
	TargetBitrate            float64  `json:"targetBitrate"`
	FramesPerSecond          float64  `json:"framesPerSecond"`
	FrameWidth               float64  `json:"frameWidth"`
	FrameHeight              float64  `json:"frameHeight"`
	BytesReceived            float64  `json:"bytesReceived"`
	PacketsReceived          float64  `json:"packetsReceived"`
	PacketsLost              float64  `json:"packetsLost"`
	Jitter                   float64  `json:"jitter"`
	RoundTripTime            *float64 `json:"roundTripTime"`
	FreezeCount              float64  `json:"freezeCount"`
	TotalFreezesDuration     float64  `json:"totalFreezesDuration"`
	QualityLimitationReason  string   `json:"qualityLimitationReason"`
}

type candidate struct {
	CandidateType string `json:"candidateType"`
	Protocol      string `json:"protocol"`
	RelayProtocol string `json:"relayProtocol"`
	Address       string `json:"address"`
	Port          int    `json:"port"`
}

type pairStats struct {
	CurrentRoundTripTime     *float64   `json:"currentRoundTripTime"`
	AvailableOutgoingBitrate *float64   `json:"availableOutgoingBitrate"`
	Local                    *candidate `json:"local"`
	Remote                   *candidate `json:"remote"`
}

type statsLine struct {
	Role          string     `json:"role"`
	UnixMS        int64      `json:"unix_ms"`
	Outbound      []rtpStats `json:"outbound"`
	Inbound       []rtpStats `json:"inbound"`
	RemoteInbound []rtpStats `json:"remoteInbound"`
	Pair          *pairStats `json:"pair"`
}

// runSummary is the getStats view of one run: the caller's video send
// side, and the callee's view of the same stream.
type runSummary struct {
	Name           string  `json:"name"`
	Pair           string  `json:"selected_pair"`
	MediaSeconds   float64 `json:"media_seconds"`
	SendKbps30     float64 `json:"video_send_kbps_last30s"`
	SendCV30       float64 `json:"video_send_cv_last30s"`
	T50            float64 `json:"t50_s"`
	T90            float64 `json:"t90_s"`
	T50Abs         float64 `json:"t50_of_2500kbps_s"`
	T90Abs         float64 `json:"t90_of_2500kbps_s"`
	TargetKbps30   float64 `json:"target_kbps_last30s"`
	AvailKbps30    float64 `json:"available_outgoing_kbps_last30s"`
	RTTRemoteMS30  float64 `json:"rtt_remote_inbound_ms_last30s"`
	RTTPairMS30    float64 `json:"rtt_candidate_pair_ms_last30s"`
	PacketsSent    float64 `json:"video_packets_sent"`
	RtxSent        float64 `json:"retransmitted_packets_sent"`
	NACKs          float64 `json:"nack_count"`
	LostCallee     float64 `json:"packets_lost_callee"`
	LostRemote     float64 `json:"packets_lost_remote_inbound"`
	LossPct        float64 `json:"loss_pct_callee"`
	RecvKbps30     float64 `json:"video_recv_kbps_last30s_callee"`
	Resolution     string  `json:"resolution_fps_sent_end"`
	Freezes        float64 `json:"callee_freezes"`
	FreezeSec      float64 `json:"callee_freeze_seconds"`
	QualityLimited string  `json:"quality_limitation_end"`
	CPUBusyPct     float64 `json:"-"` // from the run record, when there is one
}

type sample struct {
	t                     float64 // seconds since the first video byte
	bytes, rtx, nack, pkt float64
	target, avail         float64
	rttR, rttP            float64 // NaN when absent
	w, h, fps             float64
	ql                    string
}

func readStats(path string) ([]statsLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []statsLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var l statsLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			continue // a torn last line
		}
		out = append(out, l)
	}
	return out, sc.Err()
}

func pairString(p *pairStats) string {
	if p == nil || p.Local == nil || p.Remote == nil {
		return "?"
	}
	c := func(x *candidate) string {
		s := x.CandidateType + "/" + x.Protocol
		if x.RelayProtocol != "" {
			s = x.CandidateType + "(" + x.RelayProtocol + ")/" + x.Protocol
		}
		return s
	}
	return c(p.Local) + " -> " + c(p.Remote)
}

func nanMean(xs []float64) float64 {
	s, n := 0.0, 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			s += x
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

func summarize(name string, lines []statsLine) runSummary {
	rs := runSummary{Name: name, T50: math.NaN(), T90: math.NaN(), T50Abs: math.NaN(), T90Abs: math.NaN()}
	var ss []sample
	var t0 int64 = -1
	var lastCallee *statsLine
	var calleeRecv [][2]float64 // (t, video bytes received)
	for i := range lines {
		l := &lines[i]
		if l.Role == "callee" {
			lastCallee = l
			for _, in := range l.Inbound {
				if in.Kind == "video" && t0 >= 0 {
					calleeRecv = append(calleeRecv, [2]float64{float64(l.UnixMS-t0) / 1000, in.BytesReceived})
				}
			}
			continue
		}
		if l.Role != "caller" {
			continue
		}
		s := sample{rttR: math.NaN(), rttP: math.NaN(), avail: math.NaN()}
		for _, o := range l.Outbound {
			if o.Kind != "video" {
				continue
			}
			s.bytes += o.BytesSent
			s.pkt += o.PacketsSent
			s.rtx += o.RetransmittedPacketsSent
			s.nack += o.NackCount
			s.target += o.TargetBitrate
			s.w, s.h, s.fps, s.ql = o.FrameWidth, o.FrameHeight, o.FramesPerSecond, o.QualityLimitationReason
		}
		for _, r := range l.RemoteInbound {
			if r.Kind == "video" {
				if r.RoundTripTime != nil {
					s.rttR = *r.RoundTripTime * 1000
				}
				rs.LostRemote = r.PacketsLost
			}
		}
		if l.Pair != nil {
			if l.Pair.CurrentRoundTripTime != nil {
				s.rttP = *l.Pair.CurrentRoundTripTime * 1000
			}
			if l.Pair.AvailableOutgoingBitrate != nil {
				s.avail = *l.Pair.AvailableOutgoingBitrate
			}
			rs.Pair = pairString(l.Pair)
		}
		if t0 < 0 {
			if s.bytes == 0 {
				continue
			}
			t0 = l.UnixMS
		}
		s.t = float64(l.UnixMS-t0) / 1000
		ss = append(ss, s)
	}
	if len(ss) < 2 {
		return rs
	}
	last := ss[len(ss)-1]
	rs.MediaSeconds = last.t
	rs.PacketsSent, rs.RtxSent, rs.NACKs = last.pkt, last.rtx, last.nack
	rs.Resolution = fmt.Sprintf("%.0fx%.0f@%.0f", last.w, last.h, last.fps)
	rs.QualityLimited = last.ql
	// Per-interval rates and the last 30 s.
	type iv struct{ t, kbps float64 }
	var rates []iv
	for i := 1; i < len(ss); i++ {
		dt := ss[i].t - ss[i-1].t
		if dt <= 0 {
			continue
		}
		rates = append(rates, iv{ss[i].t, (ss[i].bytes - ss[i-1].bytes) * 8 / dt / 1000})
	}
	from := last.t - 30
	k := 0
	for k < len(ss)-1 && ss[k].t < from {
		k++
	}
	if dt := last.t - ss[k].t; dt > 0 {
		rs.SendKbps30 = (last.bytes - ss[k].bytes) * 8 / dt / 1000
	}
	var tg, av, rr, rp, r30 []float64
	for _, s := range ss[k:] {
		tg = append(tg, s.target/1000)
		av = append(av, s.avail/1000)
		rr = append(rr, s.rttR)
		rp = append(rp, s.rttP)
	}
	for _, r := range rates {
		if r.t > from {
			r30 = append(r30, r.kbps)
		}
	}
	rs.TargetKbps30, rs.AvailKbps30 = nanMean(tg), nanMean(av)
	rs.RTTRemoteMS30, rs.RTTPairMS30 = nanMean(rr), nanMean(rp)
	if m := nanMean(r30); m > 0 {
		v := 0.0
		for _, x := range r30 {
			v += (x - m) * (x - m)
		}
		rs.SendCV30 = math.Sqrt(v/float64(len(r30))) / m
	}
	for _, r := range rates {
		if math.IsNaN(rs.T50) && r.kbps >= 0.5*rs.SendKbps30 {
			rs.T50 = r.t
		}
		if math.IsNaN(rs.T90) && r.kbps >= 0.9*rs.SendKbps30 {
			rs.T90 = r.t
		}
		// Against the 2.5 Mbit/s a 720p VP8 stream is capped at, like
		// the analyzer's --ramp-target.
		if math.IsNaN(rs.T50Abs) && r.kbps >= 0.5*rampTargetKbps {
			rs.T50Abs = r.t
		}
		if math.IsNaN(rs.T90Abs) && r.kbps >= 0.9*rampTargetKbps {
			rs.T90Abs = r.t
		}
	}
	if lastCallee != nil {
		for _, in := range lastCallee.Inbound {
			if in.Kind == "video" {
				rs.LostCallee = in.PacketsLost
				if tot := in.PacketsLost + in.PacketsReceived; tot > 0 {
					rs.LossPct = 100 * in.PacketsLost / tot
				}
				rs.Freezes, rs.FreezeSec = in.FreezeCount, in.TotalFreezesDuration
			}
		}
	}
	if n := len(calleeRecv); n > 1 {
		end := calleeRecv[n-1]
		j := 0
		for j < n-1 && calleeRecv[j][0] < end[0]-30 {
			j++
		}
		if dt := end[0] - calleeRecv[j][0]; dt > 0 {
			rs.RecvKbps30 = (end[1] - calleeRecv[j][1]) * 8 / dt / 1000
		}
	}
	return rs
}

func f0(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.0f", x)
}

const rampTargetKbps = 2500

const summaryHeader = "| run | selected pair (caller) | video sent, last 30 s (kbit/s) | CV | t50 (s) | t90 (s) | t50, t90 of 2.5 Mbit/s (s) | target (kbit/s) | availableOutgoingBitrate (kbit/s) | RTT remote-inbound (ms) | RTT pair (ms) | packetsLost (callee) | loss % | retransmittedPacketsSent | nackCount | sent at end | callee freezes (s) | machine CPU busy % |\n" +
	"|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"

func (rs runSummary) row() string {
	return fmt.Sprintf("| %s | %s | %s | %.2f | %s | %s | %s, %s | %s | %s | %s | %s | %.0f | %.2f | %.0f | %.0f | %s | %.0f (%.1f) | %s |\n",
		rs.Name, rs.Pair, f0(rs.SendKbps30), rs.SendCV30, f0(rs.T50), f0(rs.T90), f0(rs.T50Abs), f0(rs.T90Abs), f0(rs.TargetKbps30), f0(rs.AvailKbps30),
		f0(rs.RTTRemoteMS30), f0(rs.RTTPairMS30), rs.LostCallee, rs.LossPct, rs.RtxSent, rs.NACKs, rs.Resolution, rs.Freezes, rs.FreezeSec, f0(rs.CPUBusyPct))
}

func writeSummaryTable(w io.Writer, paths []string) error {
	io.WriteString(w, summaryHeader)
	for _, p := range paths {
		lines, err := readStats(p)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(filepath.Base(p), "-stats.jsonl")
		if dir := filepath.Base(filepath.Dir(p)); dir != "." {
			name = dir + "/" + name
		}
		rs := summarize(name, lines)
		rs.CPUBusyPct = math.NaN()
		var rec struct {
			CPU *float64 `json:"cpu_busy_pct_during_media"`
		}
		if b, err := os.ReadFile(strings.TrimSuffix(p, "-stats.jsonl") + "-run.json"); err == nil && json.Unmarshal(b, &rec) == nil && rec.CPU != nil {
			rs.CPUBusyPct = *rec.CPU
		}
		io.WriteString(w, rs.row())
	}
	return nil
}

// summaryMain prints the getStats figures of the given stats files as a
// Markdown table (or JSON with -json).
func summaryMain(args []string) error {
	fs := flag.NewFlagSet("summary", flag.ExitOnError)
	asJSON := fs.Bool("json", false, "JSON instead of Markdown")
	fs.Parse(args)
	if !*asJSON {
		return writeSummaryTable(os.Stdout, fs.Args())
	}
	var all []runSummary
	for _, p := range fs.Args() {
		lines, err := readStats(p)
		if err != nil {
			return err
		}
		all = append(all, summarize(strings.TrimSuffix(filepath.Base(p), "-stats.jsonl"), lines))
	}
	b, _ := json.MarshalIndent(all, "", "  ")
	fmt.Println(string(b))
	return nil
}

// MarshalJSON writes NaN figures (absent in getStats) as null.
func (rs runSummary) MarshalJSON() ([]byte, error) {
	type plain runSummary
	v := reflect.ValueOf(&rs).Elem()
	var nulls []string
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Kind() == reflect.Float64 && math.IsNaN(f.Float()) {
			f.SetFloat(0)
			nulls = append(nulls, strings.Split(v.Type().Field(i).Tag.Get("json"), ",")[0])
		}
	}
	b, err := json.Marshal(plain(rs))
	if err != nil || len(nulls) == 0 {
		return b, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for _, k := range nulls {
		m[k] = nil
	}
	return json.Marshal(m)
}
