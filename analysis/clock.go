package analysis

import "time"

// The capture's clock: how far its time stamps may step, which stamps are corrupt, and the
// bounds that keep sums of times from wrapping.

// timeJump is a gap in capture time that is reported as a break rather than analysed as
// silence (merged captures, clocks near 1970), and the distance beyond which a packet's time
// stamp is a clock jump (clockJump).
const timeJump = int64(time.Hour)

// backStep is how far a packet may be stamped before the packet written before it. A
// capture is written in the order packets were seen: one interface's packets never go back
// in time, and several interfaces' (tcpdump -i any, dumpcap with several -i) by what their
// buffers hold, well under a second. A step back of more than that is the clock set back
// while capturing, or captures concatenated (mergecap -a): a step as one of an hour forward
// is. Forward, a silence of minutes can be real; backward, nothing of the network is.
const backStep = int64(time.Second)

// maxTime bounds the capture times the analysis works on, ±146 years from the epoch in ns
// (2116): a damaged file's times, and the clock's accumulated step, are clamped to it, so
// that no sum or difference of two of them wraps around (a fuzzed pcapng stamped at the
// reader's MaxInt64 clamp, then stepping back 235 years, made spans negative and the
// delay baseline loop forever).
const maxTime = int64(1)<<62 - 1

func clampTime(t int64) int64 { return min(max(t, -maxTime), maxTime) }

// moved returns capture time t moved by the clock's accumulated step (within ±maxTime).
func moved(t, step int64) int64 { return clampTime(clampTime(t) + step) }

// clockJump says whether a packet stamped t is a clock jump: a corrupt time stamp, not a
// time the packet was seen. The rule: it lies more than timeJump (an hour) from every
// neighbour it has in the file, the packet before it and the packet after it. A capture is
// written in the order packets were seen, so a packet an hour away from both of the packets
// around it was not seen then; a call has no hour-long silences between two packets that
// are seconds apart. Two or more packets that agree with each other are not jumps: a file
// merged from captures taken apart is a step in time (a warning and a break in the series),
// not a corrupt stamp. A capture of one packet has no jump. Backward the bound is backStep:
// a packet stamped more than a second before the packet before it, when the packet after
// it agrees with that one, is a jump too; and so is one stamped more than a second after
// the packet after it, when that one agrees with the packet before: the file goes back to
// the time it left, so no silence lay between (h161: one record's microseconds field
// 2,000,000 moved every time after it 2 s on, the capture's duration 1.02 s to 3 s).
func clockJump(t, prev, next int64, hasPrev, hasNext bool) bool {
	if hasPrev && hasNext && prev-next <= backStep && (prev-t > backStep || t-next > backStep) {
		return true // behind both, or ahead of both, by more than a step back, where they agree (backStep)
	}
	far := func(u int64) bool { return t-u > timeJump || u-t > timeJump }
	return (hasPrev || hasNext) && (!hasPrev || far(prev)) && (!hasNext || far(next))
}
