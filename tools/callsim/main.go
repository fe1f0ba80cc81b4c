// Command callsim records real WebRTC calls between two headless Chromium
// browsers in network namespaces, through an emulated bottleneck link and,
// in the TURN scenarios, a coturn server, capturing them with tcpdump.
//
// Run as root, by hand (never by CI):
//
//	go run . -scenario 1 -rtt 40 -seed 1 -out DIR -duration 70s
//
// Subcommands, used by the runner and for manual checks:
//
//	callsim up [-block-udp]      build the namespaces (no emulator)
//	callsim down                 remove them
//	callsim emu [flags]          the link emulator (in the router namespace)
//	callsim serve [flags]        the call page and signalling server (in the router namespace)
//	callsim tput -listen ADDR | -connect ADDR [-for 5s]   a TCP throughput check
//	callsim summary FILE-stats.jsonl...                   getStats figures as a Markdown table
package main

import (
	"fmt"
	"os"
)

func main() {
	var err error
	sub := ""
	if len(os.Args) > 1 {
		sub = os.Args[1]
	}
	switch sub {
	case "emu":
		err = emuMain(os.Args[2:])
	case "serve":
		err = serveMain(os.Args[2:])
	case "up":
		err = setup(len(os.Args) > 2 && os.Args[2] == "-block-udp")
	case "down":
		teardown()
	case "tput":
		err = tputMain(os.Args[2:])
	case "summary":
		err = summaryMain(os.Args[2:])
	default:
		err = runMain(os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "callsim:", err)
		os.Exit(1)
	}
}
