package pcapgen

// go test ./... -update passes -update to every test binary: this package's tests rewrite
// nothing, but the binary must accept the flag, which package golden defines.
import _ "github.com/callpcap/callpcap/internal/testgen/golden"
