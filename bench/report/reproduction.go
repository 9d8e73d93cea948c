package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"github.com/racklab/racklab/internal/safefile"
)

// Reproduction is the one page of every paper's reproduction (`bench
// reproduce all`): per paper its headline table in simulation and
// emulation, its key figure, and the fidelity of its emulated runs. The
// cells are text: bench/reproduce computes them.
type Reproduction struct {
	Title string
	// Dir is the result directory the page is about (one subdirectory per
	// paper).
	Dir   string
	Notes []string
	// Papers are the papers' sections, in order.
	Papers []ReproducedPaper
	// FidelitySummary is the line before it: per paper, how many of its
	// emulated policies agree with their simulated twins.
	FidelitySummary string
	// Summary is the page's last line: per paper, N of M reproduced.
	Summary string
}

// ReproducedPaper is one paper's section of the reproduction page.
type ReproducedPaper struct {
	// Name is the paper's campaign (its result directory under Dir).
	Name  string
	Title string
	// Failures say what failed in the paper's runs (a campaign that would
	// not load, runs that failed): shown first, in the section.
	Failures []string
	// Headlines is the headline table, a row per headline with the
	// simulated and emulated effects and verdicts; empty when there is no
	// result to check.
	Headlines Headlines
	// Figure is the paper's key figure as its campaign's report draws it;
	// nil with FigureNote saying why there is none.
	Figure     *Figure
	FigureNote string
	// Report is the paper's own report (report.html), relative to Dir;
	// "" when it was not written.
	Report string
	// Fidelity compares the emulated runs with their simulated twins:
	// a row per run set, workload and policy; PassColumn is the index of
	// its pass/fail column (-1: none), which the page colours.
	Fidelity   Headlines
	PassColumn int
}

const reproductionCSS = `
body{max-width:1500px}
table.headlines,table.fidelity{font-size:.82rem}
td.pass{background:#e6f4ea}
td.fail{background:#fce8e6}
.failure{background:#fff4e5;border-left:4px solid #d97706;padding:.4rem .8rem;white-space:pre-wrap}
p.summary{font-size:1.05rem}
`

type reproductionFigure struct {
	F   *Figure
	Img template.HTML
	PNG string
}

type reproductionPaper struct {
	P      *ReproducedPaper
	Figure *reproductionFigure
	// The tables' rows with a class per cell ("pass", "fail" or "").
	Headlines, Fidelity [][]classedCell
}

type classedCell struct{ Text, Class string }

var reproductionTmpl = template.Must(template.New("reproduction").Funcs(template.FuncMap{"e": escape}).Parse(pageHead + `<p class="note">Source: <code>{{.R.Dir}}</code>, one result directory per paper.</p>
{{range .R.Notes}}<p class="note">{{e .}}</p>
{{end}}</header>
<nav><h2>Contents</h2><ul>
{{range .Papers}}<li><a href="#paper-{{.P.Name}}">{{.P.Name}}</a></li>
{{end}}<li><a href="#summary">Summary</a></li>
</ul></nav>
<main>
{{range .Papers}}<section id="paper-{{.P.Name}}">
<h2>{{.P.Name}}{{with .P.Title}}: {{e .}}{{end}}</h2>
{{range .P.Failures}}<p class="failure"><strong>Failed:</strong> {{e .}}</p>
{{end}}{{with .P.Report}}<p>The paper's full report: <a href="{{.}}">{{.}}</a>.</p>
{{end}}<h3>Headlines</h3>
{{with .P.Headlines}}{{range .Notes}}<p class="note">{{e .}}</p>
{{end}}{{end}}{{if .Headlines}}<table class="headlines"><tr>{{range .P.Headlines.Columns}}<th>{{e .}}</th>{{end}}</tr>
{{range .Headlines}}<tr>{{range .}}<td{{with .Class}} class="{{.}}"{{end}}>{{e .Text}}</td>{{end}}</tr>
{{end}}</table>{{end}}
<p><strong>{{e .P.Headlines.Summary}}</strong></p>
<h3>Key figure</h3>
{{with .Figure}}<figure id="{{$.Anchor}}{{.F.ID}}">{{.Img}}
<figcaption><strong>{{e .F.Title}}.</strong> {{e .F.Caption}}{{with .PNG}} (<a href="{{.}}">PNG</a>){{end}}</figcaption>
</figure>{{else}}<p class="nodata">{{e .P.FigureNote}}</p>{{end}}
<h3>Fidelity of the emulated runs</h3>
{{with .P.Fidelity}}{{range .Notes}}<p class="note">{{e .}}</p>
{{end}}{{end}}{{if .Fidelity}}<table class="fidelity"><tr>{{range .P.Fidelity.Columns}}<th>{{e .}}</th>{{end}}</tr>
{{range .Fidelity}}<tr>{{range .}}<td{{with .Class}} class="{{.}}"{{end}}>{{e .Text}}</td>{{end}}</tr>
{{end}}</table>{{end}}
<p><strong>{{e .P.Fidelity.Summary}}</strong></p>
</section>
{{end}}<section id="summary">
<h2>Summary</h2>
{{range .Papers}}<p>{{e .P.Headlines.Summary}}{{with .P.Fidelity.Summary}}; {{e .}}{{end}}</p>
{{end}}{{with .R.FidelitySummary}}<p>{{e .}}</p>
{{end}}<p class="summary"><strong>{{e .R.Summary}}</strong></p>
</section>
</main>
</body>
</html>
`))

// HTML renders the page: self-contained, the key figures as SVG data
// URIs; their PNG links are relative to Dir, where the page goes.
func (r *Reproduction) HTML(outDir string) ([]byte, error) {
	d := struct {
		R      *Reproduction
		CSS    template.CSS
		Papers []reproductionPaper
		Anchor string
	}{R: r, CSS: template.CSS(css + reproductionCSS), Anchor: "key-"}
	for i := range r.Papers {
		p := &r.Papers[i]
		rp := reproductionPaper{P: p}
		if f := p.Figure; f != nil && f.NoData == "" && len(f.SVG) > 0 {
			img := fmt.Sprintf(`<img src="data:image/svg+xml;base64,%s" alt="%s" width="%d" height="%d">`,
				base64.StdEncoding.EncodeToString(f.SVG), html.EscapeString(f.Alt), f.Width, f.Height)
			rp.Figure = &reproductionFigure{F: f, Img: template.HTML(img), PNG: relativeTo(outDir, f.PNGPath)}
		}
		rp.Headlines = classed(p.Headlines, func(j int) bool { return strings.HasSuffix(at(p.Headlines.Columns, j), "verdict") })
		rp.Fidelity = classed(p.Fidelity, func(j int) bool { return j == p.PassColumn })
		d.Papers = append(d.Papers, rp)
	}
	var b bytes.Buffer
	if err := reproductionTmpl.Execute(&b, d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// classed is a table's cells, those of the verdict columns (verdict(j))
// classed by what they say: "pass" for a pass or a reproduced row, "fail"
// for a failure or a row not reproduced.
func classed(h Headlines, verdict func(j int) bool) [][]classedCell {
	var rows [][]classedCell
	for _, row := range h.Rows {
		var cells []classedCell
		for j, c := range row {
			class := ""
			if verdict(j) {
				switch {
				case strings.HasPrefix(c, "pass"), strings.HasPrefix(c, "reproduced"):
					class = "pass"
				case strings.HasPrefix(c, "fail"), strings.HasPrefix(c, "not reproduced"):
					class = "fail"
				}
			}
			cells = append(cells, classedCell{Text: c, Class: class})
		}
		rows = append(rows, cells)
	}
	return rows
}

// at is a column's name, "" past the end.
func at(columns []string, j int) string {
	if j < len(columns) {
		return columns[j]
	}
	return ""
}

// Markdown renders the page's Markdown copy: the same tables, and the key
// figures as links to their PNG files, relative to outDir.
func (r *Reproduction) Markdown(outDir string) []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	table := func(h Headlines) {
		if len(h.Rows) == 0 {
			return
		}
		writeMDTable(&b, h.Columns, h.Rows)
		w("\n")
	}
	w("# %s\n\nSource: `%s`, one result directory per paper.\n\n", r.Title, r.Dir)
	for _, n := range r.Notes {
		w("%s\n\n", n)
	}
	for _, p := range r.Papers {
		w("## %s", p.Name)
		if p.Title != "" {
			w(": %s", p.Title)
		}
		w("\n\n")
		for _, f := range p.Failures {
			w("> **Failed:** %s\n\n", strings.ReplaceAll(f, "\n", "\n> "))
		}
		if p.Report != "" {
			w("The paper's full report: [%s](%s).\n\n", p.Report, p.Report)
		}
		w("### Headlines\n\n")
		for _, n := range p.Headlines.Notes {
			w("%s\n\n", n)
		}
		table(p.Headlines)
		w("**%s**\n\n### Key figure\n\n", p.Headlines.Summary)
		if f := p.Figure; f != nil && f.NoData == "" && f.PNGPath != "" {
			png := relativeTo(outDir, f.PNGPath)
			w("![%s](%s)\n\n*%s.* %s\n\n", mdAlt(f.Alt), png, f.Title, f.Caption)
		} else {
			w("%s\n\n", p.FigureNote)
		}
		w("### Fidelity of the emulated runs\n\n")
		for _, n := range p.Fidelity.Notes {
			w("%s\n\n", n)
		}
		table(p.Fidelity)
		w("**%s**\n\n", p.Fidelity.Summary)
	}
	w("## Summary\n\n")
	for _, p := range r.Papers {
		w("- %s", p.Headlines.Summary)
		if p.Fidelity.Summary != "" {
			w("; %s", p.Fidelity.Summary)
		}
		w("\n")
	}
	if r.FidelitySummary != "" {
		w("\n%s\n", r.FidelitySummary)
	}
	w("\n**%s**\n", r.Summary)
	return []byte(b.String())
}

// ReproductionFiles are the page's files in its directory.
const (
	ReproductionHTML     = "reproduction.html"
	ReproductionMarkdown = "reproduction.md"
)

// Write writes the page into dir as reproduction.html and reproduction.md
// and returns their paths.
func (r *Reproduction) Write(dir string) (htmlPath, mdPath string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	page, err := r.HTML(dir)
	if err != nil {
		return "", "", err
	}
	htmlPath, mdPath = filepath.Join(dir, ReproductionHTML), filepath.Join(dir, ReproductionMarkdown)
	if err := safefile.WriteFile(htmlPath, page, 0o644); err != nil {
		return "", "", err
	}
	if err := safefile.WriteFile(mdPath, r.Markdown(dir), 0o644); err != nil {
		return "", "", err
	}
	return htmlPath, mdPath, nil
}

// relativeTo is path relative to dir, with slashes (a link of the page);
// "" for no path, and path itself when it has no relative form.
func relativeTo(dir, path string) string {
	if path == "" {
		return ""
	}
	absDir, err1 := filepath.Abs(dir)
	absPath, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(path)
	}
	rel, err := filepath.Rel(absDir, absPath)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}

// FormatBytes writes a byte count in the decimal multiple that shows it
// best: "1.23 GB".
func FormatBytes(x float64) string {
	unit, scale := byteUnit(x)
	if unit == "B" {
		return FormatNumber(x, 0) + " B"
	}
	return FormatNumber(x/scale, 2) + " " + unit
}
