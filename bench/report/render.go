package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"html/template"
	"path/filepath"
	"strings"
)

const css = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",Arial,sans-serif;margin:0 auto;max-width:1100px;padding:1rem 1.5rem 3rem;color:#1d1d1f;line-height:1.45}
h1{font-size:1.7rem;margin-bottom:.3rem}
h2{border-bottom:2px solid #d0d7de;padding-bottom:.2rem;margin-top:2.5rem}
h3{margin-top:1.8rem}
table{border-collapse:collapse;margin:.6rem 0 1rem;font-size:.9rem}
th,td{border:1px solid #d0d7de;padding:.25rem .55rem;text-align:left;vertical-align:top}
th{background:#f3f5f7}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.baseline td{background:#f8fafc}
td[rowspan]{background:#fff!important;font-weight:600}
.note{color:#57606a;font-size:.9rem}
pre{background:#f6f8fa;padding:.7rem;overflow:auto;font-size:.85rem}
figure{margin:1.5rem 0;padding:.5rem;border:1px solid #e5e7eb;border-radius:6px}
figure img{display:block;max-width:100%;height:auto;margin:0 auto}
figcaption{font-size:.9rem;color:#333;margin-top:.4rem}
.nodata{margin:1rem;color:#555;font-style:italic}
nav ul{columns:2}
`

// pageHead opens a self-contained page, up to its title in the header:
// the campaign report's and the reproduction page's (data .R.Title,
// .CSS).
const pageHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.R.Title}}</title>
<link rel="icon" href="data:,">
<style>{{.CSS}}</style>
</head>
<body>
<header>
<h1>{{.R.Title}}</h1>
`

var htmlTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"e":     escape,
	"seeds": seedList,
}).Parse(pageHead + `{{with .R.Partial}}<p class="partial"><strong>{{.}}</strong></p>{{end}}
{{with .R.Unfinished}}<p class="partial"><strong>{{.}}</strong></p>{{end}}
{{with .R.LostHosts}}<p class="partial"><strong>{{.}}</strong></p>{{end}}
{{with .R.Problems}}<div class="partial"><p><strong>Not as the runs left them (the figures read the files as they are now; <code>bench run</code> of the campaign redoes such runs):</strong></p><ul>{{range .}}<li>{{.}}</li>{{end}}</ul></div>{{end}}
<p class="note">Source: <code>{{.R.Dir}}</code>{{if .R.Campaign}} (campaign){{else}} (result set){{end}}.
Values are means over repetitions (runs of one policy with different seeds) with 95% confidence intervals
(Student t, n-1 degrees of freedom) where a policy has at least {{.MinCI}} repetitions; with fewer, the values themselves
are shown instead; &Delta; is the relative change of the mean against the baseline policy's mean.</p>
{{if .R.Meta}}<h2 id="meta">Campaign metadata</h2>
<table class="meta"><tr><th>key</th><th>value</th></tr>
{{range .R.Meta}}<tr><td><code>{{e .Key}}</code></td><td>{{e .Value}}</td></tr>
{{end}}</table>{{end}}
{{if .R.CampaignYAML}}<details><summary>campaign.yaml</summary><pre>{{e .R.CampaignYAML}}</pre></details>{{end}}
</header>
<nav><h2>Contents</h2><ul>
{{if .R.Headlines}}<li><a href="#headlines">Headlines</a></li>
{{end}}{{range .Comparisons}}<li><a href="#{{.C.Anchor}}">{{.C.Title}}</a></li>
{{end}}{{range .Modes}}<li><a href="#{{.Anchor}}">{{.M.Title}}</a></li>
{{end}}</ul></nav>
<main>
{{if .R.Headlines}}<section id="headlines">
<h2>Headlines</h2>
{{range .R.Headlines}}<h3>{{e .Title}}</h3>
{{range .Notes}}<p class="note">{{e .}}</p>
{{end}}<table class="headlines"><tr>{{range .Columns}}<th>{{e .}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{e .}}</td>{{end}}</tr>
{{end}}</table>
<p><strong>{{e .Summary}}</strong></p>
{{end}}</section>
{{end}}{{range .Comparisons}}
<section id="{{.C.Anchor}}">
<h2>{{.C.Title}}</h2>
{{$mode := .C.Mode}}{{if .C.Fidelity}}<p>{{e .C.Note}}</p>
{{else if .C.Sets}}<p>Result sets: {{range $i, $m := .C.Sets}}{{if $i}}, {{end}}<a href="#{{$m.Anchor}}">{{$m.Label}}</a>{{end}}; each has a section of its own below.</p>
{{else}}<p>Workloads: {{range $i, $w := .C.Workloads}}{{if $i}}, {{end}}<a href="#mode-{{$mode}}-{{$w}}">{{$w}}</a>{{end}}; each has a section of its own below.</p>
{{end}}
{{template "figures" .Figures}}</section>
{{end}}{{range .Modes}}{{$m := .M}}{{$a := .Anchor}}
<section id="{{.Anchor}}">
<h2>{{.M.Title}}</h2>
<p>Baseline policy: <strong>{{.M.Baseline}}</strong>.</p>
<table class="runs"><tr><th>policy</th><th>repetitions</th><th>seeds</th><th>jobs per run</th><th>failed jobs (all runs)</th></tr>
{{range .Runs}}<tr><td>{{.Policy}}</td><td class="num">{{.N}}</td><td>{{.Seeds}}</td><td class="num">{{.Jobs}}</td><td class="num">{{.Failed}}</td></tr>
{{end}}</table>
{{range .M.Tables}}
<h3 id="{{$a}}-{{.Family.ID}}">{{.Family.Title}}</h3>
<table class="metrics"><tr><th>metric</th><th>policy</th><th>n</th><th>mean ± 95% CI</th><th>95% CI</th><th>&Delta; vs {{.Baseline}}</th></tr>
{{range .Rows}}<tr{{if .Baseline}} class="baseline"{{end}}>{{if .First}}<td rowspan="{{$.Span $m}}">{{.MetricLabel}}</td>{{end}}<td>{{.Policy}}</td><td class="num">{{.Stat.N}}</td><td class="num">{{e .MeanText}}</td><td class="num">{{e .CIText}}</td><td class="num">{{e .RelText}}</td></tr>
{{end}}</table>
{{end}}
<h3>Figures</h3>
{{template "figures" .Figures}}</section>
{{end}}
</main>
</body>
</html>
{{define "figures"}}{{range .}}<figure id="{{.F.ID}}">
{{if .F.NoData}}<p class="nodata">No data: {{e .F.NoData}}.</p>
<figcaption><strong>Figure {{.F.Number}}. {{e .F.Title}}.</strong> {{e .F.Caption}}</figcaption>{{else}}{{.Img}}
<figcaption><strong>Figure {{.F.Number}}. {{e .F.Title}}.</strong> {{e .F.Caption}} (<a href="{{.PNG}}">PNG</a>, <a href="{{.SVG}}">SVG</a>)</figcaption>{{end}}
</figure>
{{end}}{{end}}`))

func seedList(runs []Run) string {
	var s []string
	for _, r := range runs {
		s = append(s, fmt.Sprint(r.Seed))
	}
	return strings.Join(s, ", ")
}

type runLine struct {
	Policy, Seeds string
	N             int
	Jobs, Failed  string
}

func runLines(m *Mode) []runLine {
	var out []runLine
	for _, p := range m.Set.Policies {
		runs := m.Set.RunsOf(p)
		var failed float64
		var jobs []string
		for _, r := range runs {
			failed += r.Values["failed_jobs"]
			j := FormatNumber(r.Values["jobs"], 0)
			if len(jobs) == 0 || jobs[len(jobs)-1] != j {
				jobs = append(jobs, j)
			}
		}
		out = append(out, runLine{Policy: p, Seeds: seedList(runs), N: len(runs), Jobs: strings.Join(jobs, ", "), Failed: FormatNumber(failed, 0)})
	}
	return out
}

type htmlFigure struct {
	F        *Figure
	Img      template.HTML
	PNG, SVG string
}

// escape escapes text for HTML, leaving alone what needs no escaping
// (html/template would write "+" as "&#43;", which is correct but hides
// the numbers from a reader of the source).
func escape(s string) template.HTML { return template.HTML(html.EscapeString(s)) }

type htmlMode struct {
	M       *Mode
	Anchor  string
	Runs    []runLine
	Figures []htmlFigure
}

type htmlComparison struct {
	C       *Comparison
	Figures []htmlFigure
}

type htmlData struct {
	R           *Report
	CSS         template.CSS
	Comparisons []htmlComparison
	Modes       []htmlMode
}

// MinCI is the fewest repetitions a confidence interval is shown for.
func (htmlData) MinCI() int { return MinCIRepetitions }

// Span is the number of rows of a metric in a mode's tables.
func (htmlData) Span(m *Mode) int { return len(m.Set.Policies) }

// HTML renders the report page: self-contained, with the figures as SVG
// data URIs.
func (r *Report) HTML() ([]byte, error) {
	d := htmlData{R: r, CSS: template.CSS(css)}
	figures := func(fs []*Figure) []htmlFigure {
		var out []htmlFigure
		for _, f := range fs {
			if f.NoData != "" {
				out = append(out, htmlFigure{F: f})
				continue
			}
			img := fmt.Sprintf(`<img src="data:image/svg+xml;base64,%s" alt="%s" width="%d" height="%d">`,
				base64.StdEncoding.EncodeToString(f.SVG), html.EscapeString(f.Alt), f.Width, f.Height)
			out = append(out, htmlFigure{F: f, Img: template.HTML(img),
				PNG: filepath.Base(f.PNGPath), SVG: filepath.Base(f.SVGPath)})
		}
		return out
	}
	for _, c := range r.Comparisons {
		d.Comparisons = append(d.Comparisons, htmlComparison{C: c, Figures: figures(c.Figures)})
	}
	for _, m := range r.Modes {
		d.Modes = append(d.Modes, htmlMode{M: m, Anchor: m.Anchor(), Runs: runLines(m), Figures: figures(m.Figures)})
	}
	var b bytes.Buffer
	if err := htmlTmpl.Execute(&b, d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// mdCell escapes what would break a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	// names and values come from result files: markup in them is text
	// (Markdown passes raw HTML through, and a viewer that does not
	// sanitise would run a planted <img onerror=...>)
	s = mdEscaper.Replace(s)
	return strings.ReplaceAll(s, "|", `\|`)
}

var mdEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// Markdown renders the report's summary: the tables and links to the PNG
// figures.
func (r *Report) Markdown() []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# %s\n\n", r.Title)
	for _, p := range []string{r.Partial(), r.Unfinished(), r.LostHosts()} {
		if p != "" {
			w("**%s**\n\n", mdCell(p))
		}
	}
	if len(r.Problems) > 0 {
		w("**Not as the runs left them** (the figures read the files as they are now; `bench run` of the campaign redoes such runs):\n\n")
		for _, p := range r.Problems {
			w("- %s\n", mdCell(p))
		}
		w("\n")
	}
	kind := "result set"
	if r.Campaign {
		kind = "campaign"
	}
	w("Source: `%s` (%s). Values are means over repetitions with 95%% confidence intervals "+
		"(Student t, n-1 degrees of freedom), shown as mean ± half-width, where a policy has at least %d repetitions; "+
		"with fewer, the values themselves are shown instead; Δ is the relative change of the mean "+
		"against the baseline policy's mean.\n\n", r.Dir, kind, MinCIRepetitions)
	if len(r.Meta) > 0 {
		w("## Campaign metadata\n\n| key | value |\n| --- | --- |\n")
		for _, kv := range r.Meta {
			w("| `%s` | %s |\n", mdCell(kv.Key), mdCell(kv.Value))
		}
		w("\n")
	}
	if r.CampaignYAML != "" {
		w("<details><summary>campaign.yaml</summary>\n\n```yaml\n%s\n```\n\n</details>\n\n", strings.TrimRight(r.CampaignYAML, "\n"))
	}
	if len(r.Headlines) > 0 {
		w("## Headlines\n\n")
		for _, h := range r.Headlines {
			w("### %s\n\n", h.Title)
			for _, n := range h.Notes {
				w("%s\n\n", n)
			}
			writeMDTable(&b, h.Columns, h.Rows)
			w("\n**%s**\n\n", h.Summary)
		}
	}
	mdFigures := func(fs []*Figure) {
		for _, f := range fs {
			if f.NoData != "" {
				w("*Figure %d. %s.* No data: %s. %s\n\n", f.Number, f.Title, f.NoData, f.Caption)
				continue
			}
			png := filepath.Base(f.PNGPath)
			w("![%s](%s)\n\n*Figure %d. %s.* %s ([PNG](%s), [SVG](%s))\n\n", mdAlt(f.Alt), png, f.Number, f.Title, f.Caption, png, filepath.Base(f.SVGPath))
		}
	}
	for _, c := range r.Comparisons {
		if c.Fidelity {
			w("## %s\n\n%s\n\n", c.Title(), c.Note)
		} else if len(c.Sets) > 0 {
			var sets []string
			for _, m := range c.Sets {
				sets = append(sets, m.Label())
			}
			w("## %s\n\nResult sets: %s; each has a section of its own below.\n\n", c.Title(), strings.Join(sets, ", "))
		} else {
			w("## %s\n\nWorkloads: %s; each has a section of its own below.\n\n", c.Title(), strings.Join(c.Workloads, ", "))
		}
		mdFigures(c.Figures)
	}
	for _, m := range r.Modes {
		w("## %s\n\nBaseline policy: **%s**.\n\n", m.Title(), m.Baseline)
		w("| policy | repetitions | seeds | jobs per run | failed jobs (all runs) |\n| --- | ---: | --- | ---: | ---: |\n")
		for _, l := range runLines(m) {
			w("| %s | %d | %s | %s | %s |\n", mdCell(l.Policy), l.N, l.Seeds, l.Jobs, l.Failed)
		}
		w("\n")
		for _, t := range m.Tables {
			w("### %s\n\n| metric | policy | n | mean ± 95%% CI | 95%% CI | Δ vs %s |\n| --- | --- | ---: | ---: | ---: | ---: |\n",
				t.Family.Title, mdCell(t.Baseline))
			for _, row := range t.Rows {
				label := ""
				if row.First {
					label = row.MetricLabel()
				}
				pol := mdCell(row.Policy)
				if row.Baseline {
					pol = "**" + pol + "**"
				}
				w("| %s | %s | %d | %s | %s | %s |\n", mdCell(label), pol, row.Stat.N, row.MeanText, row.CIText, row.RelText)
			}
			w("\n")
		}
		w("### Figures\n\n")
		mdFigures(m.Figures)
	}
	return []byte(b.String())
}

func mdAlt(s string) string {
	return strings.NewReplacer("[", "(", "]", ")", "\n", " ").Replace(s)
}

// writeMDTable writes a Markdown table: its header row, the separator and
// the rows, each cell escaped (mdCell).
func writeMDTable(b *strings.Builder, columns []string, rows [][]string) {
	b.WriteString("|")
	for _, c := range columns {
		fmt.Fprintf(b, " %s |", mdCell(c))
	}
	fmt.Fprintf(b, "\n|%s\n", strings.Repeat(" --- |", len(columns)))
	for _, row := range rows {
		b.WriteString("|")
		for _, c := range row {
			fmt.Fprintf(b, " %s |", mdCell(c))
		}
		b.WriteString("\n")
	}
}
