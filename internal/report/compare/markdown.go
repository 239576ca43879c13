package compare

import (
	"fmt"
	"io"
	"strings"
)

// Markdown writes the layout of the TiDB benchmark reports: per workload a
// table per version (threads, throughput, 95% latency), then all side by
// side with ratios, then the verdicts.
func (rep *Report) Markdown(w io.Writer) {
	labels := rep.Labels
	if len(rep.Settings) > 0 {
		fmt.Fprintf(w, "### Server settings that differ\n\n| Setting | %s |\n|---|%s\n", strings.Join(labels, " | "), strings.Repeat("---|", len(labels)))
		for _, d := range rep.Settings {
			cells := []string{mdCell(d.Name)}
			for _, v := range d.shown() {
				cells = append(cells, mdCell(v))
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
		fmt.Fprintln(w)
	}
	for _, t := range rep.Tables {
		if t.Compact {
			fmt.Fprintf(w, "### %s\n\n| Version | Threads | %s |\n|---|---|---|\n", t.Title, t.Unit)
			for v := len(labels) - 1; v >= 0; v-- { // the newest first
				for _, r := range t.Rows {
					fmt.Fprintf(w, "| %s | %d | %s |\n", labels[v], r.Threads, num(tput(r.Med[v]), 2))
				}
			}
		} else {
			fmt.Fprintf(w, "### %s test\n\n", t.Title)
			for v, label := range labels {
				fmt.Fprintf(w, "%s:\n\n| Threads | %s | 95%% latency(ms) |\n|---|---|---|\n", label, t.Unit)
				for _, r := range t.Rows {
					if r.Med[v] != nil {
						fmt.Fprintf(w, "| %d | %s | %s |\n", r.Threads, num(tput(r.Med[v]), 2), num(lat(r.Med[v], "95"), 2))
					}
				}
				fmt.Fprintln(w)
			}
			cols := rep.columns(t, style{"Threads", func(v int, p string) string { return labels[v] + " p" + p + " (ms)" }})
			var head []string
			for _, c := range cols {
				head = append(head, c.head)
			}
			fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(cols)))
			for _, r := range t.Rows {
				var cells []string
				for _, c := range cols {
					cells = append(cells, c.cell(r))
				}
				fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
			}
		}
		fmt.Fprintf(w, "\n%s\n\n", t.Verdict(labels))
		if h := t.ByVersion(labels); h != "" {
			fmt.Fprintf(w, "%s\n\n", h)
		}
		bullets(w, "", t.CellVerdicts(labels))
		bullets(w, "Where it got worse:", t.Where(labels))
		if whys := rep.whyLines(t); len(whys) > 0 {
			fmt.Fprintf(w, "Why (the evidence):\n\n")
			for _, y := range whys {
				fmt.Fprintf(w, "- %s\n", mdCell(y[0]))
				for _, x := range y[1:] {
					fmt.Fprintf(w, "  - %s\n", mdCell(x))
				}
			}
			fmt.Fprintln(w)
		}
		bullets(w, eventsHead+":", t.EventImpacts(labels))
		rep.details(w, t, true)
		rep.errors(w, t, true)
		rep.client(w, t, true)
		warnings(w, t)
	}
	rep.best(w, true)
	rep.capacityTables(w, true)
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
