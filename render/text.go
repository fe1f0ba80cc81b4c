package render

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/callpcap/callpcap/report"
)

// textWidth is the widest line the text report writes.
const textWidth = 100

// Text writes the report for a person at a terminal: per capture, one line per call, worst
// first, when it holds several (report.Calls), the legs the media took, then per call
// direction the figures that matter and its streams, then the findings. With several
// captures it ends with a side-by-side comparison.
func Text(w io.Writer, r *report.Report) error {
	tw := &textWriter{w: w}
	for i := range r.Captures {
		if i > 0 {
			tw.line("")
		}
		tw.capture(&r.Captures[i])
	}
	if r.Comparison != nil {
		if len(r.Captures) > 0 {
			tw.line("")
		}
		tw.comparison(r)
	}
	return tw.err
}

type textWriter struct {
	w   io.Writer
	err error
}

func (t *textWriter) line(format string, args ...any) {
	if t.err != nil {
		return
	}
	s := format
	if len(args) > 0 {
		s = fmt.Sprintf(format, args...)
	}
	_, t.err = io.WriteString(t.w, strings.TrimRight(s, " ")+"\n")
}

// parts writes atomic pieces of text separated by sep, starting new lines (indented by
// indent) wherever the next piece would pass textWidth. A line that breaks a list keeps the
// separator's comma at its end (mark), counted in the width.
func (t *textWriter) parts(first, indent, sep string, pieces ...string) {
	line := first
	fresh := true
	mark := strings.TrimRight(sep, " ")
	for _, p := range pieces {
		if p == "" {
			continue
		}
		switch {
		case fresh:
			line += p
		case utf8.RuneCountInString(line+sep+p+mark) > textWidth:
			t.line("%s", line+mark)
			line = indent + strings.TrimLeft(p, " ")
		default:
			line += sep + p
		}
		fresh = false
	}
	t.line("%s", line)
}

// wrap writes prose words after first, continuing on lines indented by indent.
func (t *textWriter) wrap(first, indent, text string) {
	t.parts(first, indent, " ", strings.Fields(text)...)
}

func (t *textWriter) capture(c *report.Capture) {
	// A file name too long for the line is cut from the left, as in the comparison's legend:
	// the end of a path is the part that tells it.
	if c.Error != "" {
		t.wrap(fitLeft(c.File, textWidth/2)+"  error: ", "  ", c.Error)
		return
	}
	head := headPieces(c)
	head[0] = fitLeft(c.File, textWidth-len([]rune("  "+head[0]+","))) + "  " + head[0]
	t.parts("", "  ", ", ", head...)
	t.wrap("", "  ", Headline(c))
	for _, w := range c.Warnings {
		t.wrap("warning: ", "  ", w)
	}
	if lines := callLines(c); lines != nil {
		t.line("")
		t.calls(lines)
	}
	if len(c.Legs) > 0 {
		t.line("")
		t.line("Legs")
		for _, l := range c.Legs {
			t.parts("  ", "      ", " ", legParts(&l)...)
		}
	}
	streams := report.StreamsByID(c)
	for i := range c.Directions {
		t.line("")
		t.direction(&c.Directions[i], streams)
	}
	if c.ICE.Checks > 0 || len(c.TURN.Allocations) > 0 {
		t.line("")
		t.signalling(c)
	}
	t.line("")
	t.line("Findings")
	if len(c.Findings) == 0 {
		t.line("  none")
	}
	for _, f := range c.Findings {
		t.wrap("  "+severityMark(f.Severity)+" ", "     ", f.Text)
	}
}

// headPieces are what every format's head says of the capture, in order: its format, link
// types, packets, bytes, span, compression, and whether the reading was interrupted.
func headPieces(c *report.Capture) []string {
	head := []string{c.Format, strings.Join(c.LinkTypes, "+"), thousands(c.Packets) + " packets", bytesSI(c.WireBytes)}
	if c.DurationS != nil { // without packets there is no span: "0 s" would read as one
		head = append(head, seconds(*c.DurationS))
	}
	if c.Compression != "" && c.Compression != "none" {
		head = append(head, c.Compression)
	}
	if c.Interrupted {
		head = append(head, "PARTIAL: read interrupted")
	}
	return head
}

// receiverLossPct is the loss the receivers of d's media streams reported in RTCP where the
// capture saw none, in percent and as counts; ok false when there is none to tell: a capture
// before the loss (at the sender) sees none, and its "loss 0%" alone would read as none at
// all.
func receiverLossPct(d *report.Direction, streams map[string]*report.Stream) (pct float64, lost, exp int64, ok bool) {
	lost, exp = report.ReceiverReportedLoss(d, streams)
	if lost == 0 || exp <= 0 || d.Loss.Lost > 0 {
		return 0, 0, 0, false
	}
	return 100 * float64(lost) / float64(exp), lost, exp, true
}

// receiverLoss is receiverLossPct as "1.0% (14 of 1,400)", or "".
func receiverLoss(d *report.Direction, streams map[string]*report.Stream) string {
	p, lost, exp, ok := receiverLossPct(d, streams)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s (%s of %s)", pct(p), thousands(lost), thousands(exp))
}

func (t *textWriter) direction(d *report.Direction, streams map[string]*report.Stream) {
	t.parts("", "  ", " ", d.From, "-> "+d.To, " "+string(d.Transport))
	first := fmt.Sprintf("  goodput %s   wire %s", optRate(d.GoodputKbps), optRate(d.WireKbps))
	if d.Efficiency != nil {
		first += fmt.Sprintf("   efficiency %.0f%%", *d.Efficiency*100)
	}
	if r := d.Ramp; r != nil {
		first += "   ramp"
		if r.T50S != nil {
			first += " t50 " + seconds(*r.T50S)
		} else {
			first += " t50 never"
		}
		if r.T90S != nil {
			first += "  t90 " + seconds(*r.T90S)
		} else {
			first += "  t90 never"
		}
		if r.Stable != nil {
			if *r.Stable {
				first += "  stable"
			} else {
				first += "  unstable"
			}
		}
	}
	t.line("%s", first)

	loss := "loss n/a"
	if d.Loss.Pct != nil {
		loss = "loss " + pct(*d.Loss.Pct)
		if d.Loss.Lost > 0 {
			loss += fmt.Sprintf(" (%s of %s)", thousands(d.Loss.Lost), thousands(d.Loss.Expected))
		}
	}
	if r := receiverLoss(d, streams); r != "" {
		loss += " here, " + r + " reported by the receiver"
	}
	var dropped, retx, late string
	if n := d.Loss.DroppedBeforeTCP; n != nil && *n > 0 {
		dropped = "dropped before TCP " + thousands(*n)
	}
	if d.TCPRetransmittedPct != nil {
		retx = "TCP retransmitted " + pct(*d.TCPRetransmittedPct)
	}
	if l := d.Late; l != nil {
		late = fmt.Sprintf("late >%s %s (%s", strings.ReplaceAll(exactMS(l.BudgetMS), " ", ""), thousands(l.Packets), pct(l.Pct))
		if l.HOLBlocked > 0 {
			late += fmt.Sprintf(", %s behind a retransmission", thousands(l.HOLBlocked))
		}
		late += ")"
	}
	t.parts("  ", "  ", "   ", loss, dropped, retx, late)
	if dl := d.DelayMS; dl != nil {
		what := "delay above baseline"
		if dl.AtSender() {
			what = senderQueueing
		}
		t.parts("  ", "    ", "  ", what+" p50 "+ms(dl.P50), "p95 "+ms(dl.P95), "max "+ms(dl.Max))
	}
	if r := d.Relay; r != nil {
		t.parts("  relay ", "    ", "   ", relayFigures(r)...)
	}
	// The last second of the series is cut short by the end of the direction's media (the
	// series runs to the second that holds its last packet), so its bytes over a whole
	// second draw a drop at the end of every call. It is left out rather than scaled by
	// the part of the second the media covered: arrival times say little of that part (a
	// late packet alone can open the last second), and a small part would scale to a spike.
	media := d.Series.MediaKbps
	if len(media) > 1 {
		media = media[:len(media)-1]
	}
	if line, per := sparkline(media, 60); line != "" {
		t.line("  %s  media bitrate, %d s per mark", line, per)
	}
	t.streamTable(d, streams)
}

func (t *textWriter) signalling(c *report.Capture) {
	if ice := c.ICE; ice.Checks > 0 {
		// In pieces a line may break between: a relay's named legs take more than one.
		figs := []string{count(ice.Checks, "check", "checks"), count(ice.Successes, "success", "successes"),
			count(ice.Failures, "failure", "failures")}
		if ice.RTTMS != nil {
			figs = append(figs, "RTT p50 "+ms(ice.RTTMS.P50))
		}
		pieces := commaList(figs)
		if legs := iceLegs(&ice); legs != nil {
			legs = commaList(legs)
			legs[0] = "(" + legs[0] // one leg is both the first and the last
			legs[len(legs)-1] += ")"
			pieces = append(pieces, legs...)
		}
		t.parts("ICE  ", "  ", " ", pieces...)
		for _, n := range ice.Nominated {
			t.parts("  nominated ", "    ", " ", strings.Fields(n)...)
		}
	}
	for _, a := range c.TURN.Allocations {
		parts := []string{fmt.Sprintf("TURN allocation on %s (%s)", a.Server, a.Transport), "by " + a.Client + ","}
		if a.Relayed != nil {
			parts = append(parts, "relayed "+*a.Relayed+",")
		}
		parts = append(parts, count(int64(a.Permissions), "permission,", "permissions,"),
			count(int64(len(a.Channels)), "channel", "channels"))
		t.parts("", "  ", " ", parts...)
	}
	refused, routine := turnErrors(c.TURN.Errors)
	if len(refused) > 0 {
		t.parts("TURN errors: ", "  ", ", ", refused...)
	}
	if len(routine) > 0 {
		t.parts("TURN routine answers: ", "  ", ", ", routine...)
	}
}

// turnErrors names TURN's error answers ("403 Forbidden ×2"), the refusals apart from the
// routine answers (the 401 challenge, a stale nonce, a redirect, each said what it is), so
// that the normal start of an allocation never reads as an error.
func turnErrors(errs []report.TURNError) (refused, routine []string) {
	for _, e := range errs {
		s := fmt.Sprintf("%d %s ×%d", e.Code, report.TURNErrorReason(e.Code), e.Count)
		if report.TURNErrorReason(e.Code) == "" {
			s = fmt.Sprintf("%d ×%d", e.Code, e.Count)
		}
		if report.TURNErrorRoutine(e.Code) {
			routine = append(routine, s+" ("+routineWhy[e.Code]+")")
		} else {
			refused = append(refused, s)
		}
	}
	return refused, routine
}

// senderQueueing names the delay of a direction captured at its sender (report.Delay's
// Vantage): the sender's own queueing, not the journey, and no packet counts late.
const senderQueueing = "queueing at the sender (captured there: no packet counts late)"

// iceLegs returns the ICE round trips by leg ("relay_peer p50 65 ms"), or nil when every leg
// is this host's own: legs other than those are named, since at a relay each covers one leg
// and an unknown sender's times are not an RTT.
func iceLegs(ice *report.ICE) []string {
	var legs []string
	named := false
	for _, l := range ice.RTTLegs {
		legs = append(legs, fmt.Sprintf("%s p50 %s", l.Leg, ms(l.RTTMS.P50)))
		named = named || !strings.HasPrefix(l.Leg, "host_")
	}
	if !named {
		return nil
	}
	return legs
}

// commaList puts a comma after every item but the last, for parts to join with spaces.
func commaList(items []string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it + ","
	}
	out[len(out)-1] = items[len(items)-1]
	return out
}

// routineWhy says what each routine TURN error answer is (report.TURNErrorRoutine).
var routineWhy = map[int]string{300: "a redirect", 401: "the authentication challenge", 438: "a new nonce"}

func severityMark(s report.Severity) string {
	switch s {
	case report.SeverityBad:
		return "!!"
	case report.SeverityWarn:
		return "! "
	}
	return "- "
}
