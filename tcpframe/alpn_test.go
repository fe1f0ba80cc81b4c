package tcpframe

import (
	"encoding/hex"
	"testing"

	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// coturnHello is the ClientHello's record fragment of turnutils_uclient -S (coturn 4),
// as a tester captured it: ALPN http/1.1, stun.turn, stun.nat-discovery.
const coturnHello = "010001370303fd2a9818b8e9c942e263b68ed981377afa7bf78481aabc3b3db2d1a85fe5fb8b0000" +
	"90c02cc03000a3009fcca9cca8ccaac0afc0adc0a3c09fc05dc061c057c053c02bc02f00a2009ec0" +
	"aec0acc0a2c09ec05cc060c056c052c024c028006b006ac073c07700c400c3c023c02700670040c0" +
	"72c07600be00bdc00ac0140039003800880087c009c0130033003200450044009dc0a1c09dc05100" +
	"9cc0a0c09cc050003d00c0003c00ba00350084002f004100ff0100007e000b000403000102000a00" +
	"0c000a001d0017001e001900180023000000100028002608687474702f312e31097374756e2e7475" +
	"726e127374756e2e6e61742d646973636f766572790016000000170000000d002a00280403050306" +
	"03080708080809080a080b080408050806040105010601030303010302040205020602"

func TestOffersALPN(t *testing.T) {
	full := pcapgen.TLSClientHello("h2", "stun.turn")
	for _, tc := range []struct {
		name  string
		hello []byte
		want  bool
	}{
		{"offers stun.turn among others", full, true},
		{"offers others only", pcapgen.TLSClientHello("h2", "http/1.1"), false},
		{"no ALPN", pcapgen.TLSClientHello(), false},
		{"a prefix of the name", pcapgen.TLSClientHello("stun.tur"), false},
		{"not a ClientHello", append([]byte{2}, full[1:]...), false},
		{"empty ALPN extension", pcapgen.TLSClientHello(""), false},
		{"coturn's", mustHex(coturnHello), true},
	} {
		if got := OffersALPN(tc.hello, "stun.turn"); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	for n := range len(full) { // every cut: no panic, and no name found before the last byte
		if OffersALPN(full[:n], "stun.turn") {
			t.Errorf("cut at %d of %d: found", n, len(full))
		}
	}
}
