package main

import (
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The HTML report, rendered by a real browser (headless Chromium), shows
// both versions' lines: the screenshot holds enough pixels of each
// version's colour. An HTML whose charts had no data would not.
func TestHTMLReportInChromium(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium not installed: scripts/test.sh installs it")
		}
		t.Skip("chromium not installed")
	}
	needServer(t) // the built binary
	dir := t.TempDir()
	r := ob(t, nil, "report", "compare", "--baseline="+legacy+"/v2.1", "--candidate="+legacy+"/v3.0", "--format=html")
	mustOK(t, r, "compare --format=html")
	page := filepath.Join(dir, "report.html")
	os.WriteFile(page, []byte(r.stdout), 0o644)
	shot := filepath.Join(dir, "shot.png")
	cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1100,2400",
		"--screenshot="+shot, "file://"+page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// The two line colours of render.go: #1f77b4 and #d62728.
	want := [2][3]int{{0x1f, 0x77, 0xb4}, {0xd6, 0x27, 0x28}}
	var n [2]int
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			for i, c := range want {
				if near(int(r>>8), c[0]) && near(int(g>>8), c[1]) && near(int(bl>>8), c[2]) {
					n[i]++
				}
			}
		}
	}
	t.Logf("pixels %v", n)
	if n[0] < 2500 || n[1] < 2500 { // the legends alone are about 600 each
		t.Errorf("the rendered charts show %d and %d pixels of the two versions' colours", n[0], n[1])
	}
}

func near(a, b int) bool { return a-b < 24 && b-a < 24 }
