package rtpflow

import (
	"net/netip"
	"reflect"
	"testing"

	"github.com/callpcap/callpcap/transport"
	"github.com/callpcap/callpcap/wire"
)

// An RTX packet's OSN is its first two payload bytes. A packet cut by the snap length with
// the P bit set lost its padding count, so its first payload bytes are an OSN only when
// more than 255 + 1 bytes follow the header on the wire (the count is one byte).
func TestPacketOfOSN(t *testing.T) {
	rtp := func(padding bool, after int) []byte {
		b := make([]byte, 12+after)
		b[0], b[1] = 0x80, 97 // V=2, PT 97
		if padding {
			b[0] |= 0x20
			b[len(b)-1] = byte(min(after, 200)) // the padding count
		}
		b[12], b[13] = 0x12, 0x34 // OSN, or padding
		return b
	}
	for _, tt := range []struct {
		name    string
		pkt     []byte
		snap    int // captured bytes of the packet; 0: whole
		wantOSN bool
	}{
		{"repair", rtp(false, 1102), 0, true},
		{"repair, snapped", rtp(false, 1102), 158, true},
		{"probe", rtp(true, 200), 0, false}, // padding only: no payload
		{"probe, snapped", rtp(true, 200), 158, false},
		{"256 bytes after the header, padded, snapped", rtp(true, 256), 158, false},
		{"257 bytes after the header, padded, snapped", rtp(true, 257), 158, true},
		{"repair with padding", rtp(true, 1102), 0, true},
		{"snapped inside the OSN", rtp(false, 1102), 13, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.pkt
			m := transport.Message{Payload: b, Wire: transport.Wire{Total: int64(len(b))}}
			if tt.snap > 0 {
				m.Payload, m.Snapped = b[:tt.snap], true
			}
			var h wire.RTP
			if err := h.Unmarshal(m.Payload, m.Snapped); err != nil {
				t.Fatal(err)
			}
			var pk Packet
			PacketOf(&pk, Path{}, &m, &h)
			if pk.HasOSN != tt.wantOSN || tt.wantOSN && pk.OSN != 0x1234 {
				t.Errorf("HasOSN %v OSN %#x, want %v 0x1234", pk.HasOSN, pk.OSN, tt.wantOSN)
			}
		})
	}
}

// TestPacketOfSetsEveryField: the analysis hands PacketOf a slot of its batch as it was
// left by the packet before (media.rtp), so PacketOf must set every field but TimeSteps,
// which the caller sets. A slot filled with garbage in every field comes out as a zero one
// does.
func TestPacketOfSetsEveryField(t *testing.T) {
	b := rp{pt: 111, seq: 7, ts: 960, ssrc: 0xA1, payload: make([]byte, 40), pad: 4}.bytes()
	m := msg(b, T0)
	var h wire.RTP
	if err := h.Unmarshal(b, false); err != nil {
		t.Fatal(err)
	}
	var zero, dirty Packet
	v := reflect.ValueOf(&dirty).Elem()
	for i := range v.NumField() {
		fillNonZero(v.Field(i))
	}
	PacketOf(&zero, pathA, m, &h)
	PacketOf(&dirty, pathA, m, &h)
	dirty.TimeSteps = zero.TimeSteps
	if !reflect.DeepEqual(zero, dirty) {
		t.Errorf("PacketOf left fields of the slot as they were:\n got %+v\nwant %+v", dirty, zero)
	}
}

// fillNonZero sets v, and each field of a struct v, to a value that is not its zero.
func fillNonZero(v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(99)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(99)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 3, 3))
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(netip.AddrPort{}) {
			v.Set(reflect.ValueOf(netip.MustParseAddrPort("192.0.2.99:9")))
			return
		}
		for i := range v.NumField() {
			if v.Field(i).CanSet() {
				fillNonZero(v.Field(i))
			}
		}
	}
}
