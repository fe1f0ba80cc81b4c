package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// The topology: three hosts, each a namespace with one veth to the router
// namespace, which forwards between them. The caller's link runs through
// the link emulator (two TUN devices in the router).
const (
	nsCaller = "cs-caller"
	nsCallee = "cs-callee"
	nsTurn   = "cs-turn"
	nsRouter = "cs-router"

	callerAddr = "10.10.1.2"
	calleeAddr = "10.10.2.2"
	turnAddr   = "10.10.3.2"
	// serverAddr is on the router's loopback: the call page and signalling
	// reach it without crossing the emulated link.
	serverAddr = "10.10.0.1"
	serverPort = "8080"
)

type host struct {
	ns, rIf, net string // namespace, router-side veth, /24 prefix (first three octets)
}

var hosts = []host{
	{nsCaller, "r-caller", "10.10.1"},
	{nsCallee, "r-callee", "10.10.2"},
	{nsTurn, "r-turn", "10.10.3"},
}

func sh(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

func nsx(ns string, args ...string) error {
	return sh("ip", append([]string{"netns", "exec", ns}, args...)...)
}

// teardown removes every namespace the harness makes; it is idempotent.
// Deleting a namespace removes its veths, routes, rules and nft tables.
func teardown() {
	for _, ns := range []string{nsCaller, nsCallee, nsTurn, nsRouter} {
		os.RemoveAll("/etc/netns/" + ns)
		if _, err := os.Stat("/run/netns/" + ns); err == nil {
			if err := sh("ip", "netns", "del", ns); err != nil {
				fmt.Fprintln(os.Stderr, "teardown:", err)
			}
		}
	}
}

func sysctls(ns string) error {
	for _, kv := range []string{
		"net.ipv4.conf.all.rp_filter=0",
		"net.ipv4.conf.default.rp_filter=0",
		"net.ipv6.conf.all.disable_ipv6=1",
		"net.ipv6.conf.default.disable_ipv6=1",
	} {
		if err := nsx(ns, "sysctl", "-q", "-w", kv); err != nil {
			return err
		}
	}
	return nil
}

// setup builds the namespaces, veths, addresses, routes and policy rules.
func setup(blockCallerUDP bool) error {
	teardown()
	for _, ns := range []string{nsRouter, nsCaller, nsCallee, nsTurn} {
		if err := sh("ip", "netns", "add", ns); err != nil {
			return err
		}
		// "ip netns exec" bind-mounts this over /etc/resolv.conf: no
		// resolver, so no DNS queries to the machine's resolver (and its
		// address) in the captures.
		if err := os.MkdirAll("/etc/netns/"+ns, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile("/etc/netns/"+ns+"/resolv.conf", []byte("# callsim: no resolver\noptions attempts:1 timeout:1\n"), 0o644); err != nil {
			return err
		}
		if err := sysctls(ns); err != nil {
			return err
		}
		if err := nsx(ns, "ip", "link", "set", "lo", "up"); err != nil {
			return err
		}
	}
	if err := nsx(nsRouter, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1"); err != nil {
		return err
	}
	if err := nsx(nsRouter, "ip", "addr", "add", serverAddr+"/32", "dev", "lo"); err != nil {
		return err
	}
	for _, h := range hosts {
		steps := [][]string{
			{"ip", "link", "add", h.rIf, "netns", nsRouter, "type", "veth", "peer", "name", "eth0", "netns", h.ns},
			{"ip", "netns", "exec", nsRouter, "ip", "addr", "add", h.net + ".1/24", "dev", h.rIf},
			{"ip", "netns", "exec", nsRouter, "ip", "link", "set", h.rIf, "up"},
			{"ip", "netns", "exec", h.ns, "ip", "addr", "add", h.net + ".2/24", "dev", "eth0"},
			{"ip", "netns", "exec", h.ns, "ip", "link", "set", "eth0", "up"},
			{"ip", "netns", "exec", h.ns, "ip", "route", "add", "default", "via", h.net + ".1"},
		}
		for _, s := range steps {
			if err := sh(s[0], s[1:]...); err != nil {
				return err
			}
		}
		// Real MTU-sized segments in the captures, not GSO super-packets.
		for _, x := range [][2]string{{nsRouter, h.rIf}, {h.ns, "eth0"}} {
			if err := nsx(x[0], "ethtool", "-K", x[1], "tso", "off", "gso", "off", "gro", "off"); err != nil {
				return err
			}
		}
	}
	// rp_filter is the max of "all" and the interface's value: clear both.
	for _, h := range hosts {
		_ = nsx(nsRouter, "sysctl", "-q", "-w", "net.ipv4.conf."+h.rIf+".rp_filter=0")
		_ = nsx(h.ns, "sysctl", "-q", "-w", "net.ipv4.conf.eth0.rp_filter=0")
	}
	// Policy routing through the emulator: packets re-injected by the TUN
	// devices go to the main table (checked first); packets from the
	// caller go to table 100 (default dev tun-up); packets to the caller
	// from the other hosts go to table 101 (default dev tun-down). The
	// emulator adds those two default routes once its TUN devices exist.
	// Traffic to the router's own addresses is delivered by the local
	// table (preference 0) and bypasses the emulator.
	rules := [][]string{
		{"pref", "100", "iif", "tun-up", "lookup", "main"},
		{"pref", "101", "iif", "tun-down", "lookup", "main"},
		{"pref", "200", "iif", "r-caller", "lookup", "100"},
		{"pref", "201", "iif", "r-callee", "to", callerAddr, "lookup", "101"},
		{"pref", "202", "iif", "r-turn", "to", callerAddr, "lookup", "101"},
	}
	for _, r := range rules {
		if err := nsx(nsRouter, append([]string{"ip", "rule", "add"}, r...)...); err != nil {
			return err
		}
	}
	if blockCallerUDP {
		if err := blockUDP(); err != nil {
			return err
		}
	}
	return nil
}

// blockUDP drops all UDP from and to the caller in the router, as in the
// seed's "all UDP blocked" scenarios.
func blockUDP() error {
	ruleset := fmt.Sprintf(`table inet callsim {
	chain forward {
		type filter hook forward priority 0; policy accept;
		ip saddr %[1]s meta l4proto udp counter drop
		ip daddr %[1]s meta l4proto udp counter drop
	}
}
`, callerAddr)
	cmd := exec.Command("ip", "netns", "exec", nsRouter, "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(ruleset)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("nft: %v: %s", err, out)
	}
	return nil
}
