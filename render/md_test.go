package render

import "testing"

// TestMDText: capture text comes out of mdText as literal characters.
func TestMDText(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"tag", `<script>alert(1)</script>`, `\<script\>alert(1)\</script\>`},
		{"link", `[x](http://evil)`, `\[x\](http:\/\/evil)`},
		{"image and emphasis", "![a](b) *b* _c_ `d`", "\\!\\[a\\](b) \\*b\\* \\_c\\_ \\`d\\`"},
		{"table cell and entity", `a|b &lt;`, `a\|b \&lt;`},
		{"new block", "x\n# h\r\n", `x \# h  `},
		{"autolink", "see www.evil.example", `see www\.evil.example`},
		{"address", "10.0.0.1:443", "10.0.0.1:443"},
	} {
		if got := mdText(tc.in); got != tc.want {
			t.Errorf("%s: mdText(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}
