package render

import (
	"strings"
)

// labelSeparators are the characters that end a word of a file name: a label is made of
// whole words, so that "rtt50" and "rtt100" stay themselves rather than "5" and "10".
const labelSeparators = "-_./ "

// captureLabels names each file by the part of its name that the others do not share: the
// words left after the longest common prefix and suffix of words, as runs of captures
// are usually named alike but for a letter or a setting (A-…-rtt100-caller.pcap.gz, or
// call-rtt50.pcap and call-rtt100.pcap). Where that part is empty, not unique or wider than
// maxWidth, every file is named by its index instead (A, B, …, Z, AA, …) and indexed is
// true: the reader then needs the legend of full names.
func captureLabels(files []string, maxWidth int) (labels []string, indexed bool) {
	words := make([][]string, len(files))
	shortest := -1
	for i, f := range files {
		words[i] = splitWords(f)
		if shortest < 0 || len(words[i]) < shortest {
			shortest = len(words[i])
		}
	}
	prefix := 0
	for prefix < shortest && sameAt(words, func(w []string) string { return w[prefix] }) {
		prefix++
	}
	suffix := 0
	for prefix+suffix < shortest && sameAt(words, func(w []string) string { return w[len(w)-1-suffix] }) {
		suffix++
	}
	seen := map[string]bool{}
	for _, w := range words {
		l := strings.Trim(strings.Join(w[prefix:len(w)-suffix], ""), labelSeparators)
		if l == "" || seen[l] || len([]rune(l)) > maxWidth {
			return indexLabels(len(files)), true
		}
		seen[l] = true
		labels = append(labels, l)
	}
	return labels, false
}

// splitWords cuts a name into words and single separators, which joined give it back.
func splitWords(s string) []string {
	var out []string
	start := 0
	for i, r := range s {
		if strings.ContainsRune(labelSeparators, r) {
			if i > start {
				out = append(out, s[start:i])
			}
			out = append(out, string(r))
			start = i + len(string(r))
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func sameAt(words [][]string, at func([]string) string) bool {
	for _, w := range words[1:] {
		if at(w) != at(words[0]) {
			return false
		}
	}
	return true
}

// indexLabels names n columns A, B, …, Z, AA, AB, …
func indexLabels(n int) []string {
	out := make([]string, n)
	for i := range out {
		s := ""
		for k := i; ; k = k/26 - 1 {
			s = string(rune('A'+k%26)) + s
			if k < 26 {
				break
			}
		}
		out[i] = s
	}
	return out
}
