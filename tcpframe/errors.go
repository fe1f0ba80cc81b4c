package tcpframe

import "errors"

// ErrBadHeader is returned by a SplitFunc when data does not start with a header its framing
// accepts: the caller must resynchronise (see Resync) rather than stop.
var ErrBadHeader = errors.New("tcpframe: no valid frame header")
