package main

import (
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/paimon-go/paimon/commit"
)

// series colours: commit, data files, metadata, manifests, manifest lists,
// snapshot publish, freshness, query, PUT; lookup freshness reuses the
// first, dashed.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff},
	{0x17, 0xbe, 0xcf, 0xff}, {0xbc, 0xbd, 0x22, 0xff}, {0x8c, 0x56, 0x4b, 0xff},
	{0xd6, 0x27, 0x28, 0xff}, {0x94, 0x67, 0xbd, 0xff}, {0x7f, 0x7f, 0x7f, 0xff},
}

// minPlotMS is the smallest latency drawn on the logarithmic axes.
const minPlotMS = 0.001

// writePlot draws, for each workload, the CDF of the latency of every
// phase (left), the legend of its series (middle, beside the plots so that
// it covers no curve) and commit latency over the run (right), under a
// header naming the store, as SVG or PNG by the file's extension.
func writePlot(path string, results []*result) error {
	type row struct {
		cdf, over *plot.Plot
		legend    plot.Legend
	}
	var rows []row
	for _, r := range results {
		cdf, legend, err := cdfPlot(r)
		if err != nil {
			return fmt.Errorf("rtbench: plot: %w", err)
		}
		over, err := timePlot(r)
		if err != nil {
			return fmt.Errorf("rtbench: plot: %w", err)
		}
		rows = append(rows, row{cdf, over, legend})
	}
	const rowH = 10 * vg.Centimeter
	header := vg.Centimeter
	w, h := 34*vg.Centimeter, header+vg.Length(len(rows))*rowH

	var wt io.WriterTo
	var dc draw.Canvas
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg":
		c := vgsvg.New(w, h)
		dc, wt = draw.New(c), c
	case ".png":
		c := vgimg.New(w, h)
		dc, wt = draw.New(c), vgimg.PngCanvas{Canvas: c}
	default:
		return fmt.Errorf("rtbench: plot %s: want a .svg or .png file", path)
	}
	// A white background for PNG viewers.
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	if len(results) > 0 {
		sty := plot.NewLegend().TextStyle
		dc.FillText(sty, vg.Point{X: dc.Min.X + 3*vg.Millimeter, Y: dc.Max.Y - header + 3*vg.Millimeter},
			"rtbench: store "+shorten(results[0].store, 110))
	}
	pad := 3 * vg.Millimeter
	for i, r := range rows {
		top := dc.Max.Y - header - vg.Length(i)*rowH
		rc := draw.Crop(dc, 0, 0, top-rowH-dc.Min.Y, top-dc.Max.Y)
		// Columns: CDF 45 %, legend 17 %, time plot the rest.
		x0, x1 := rc.Min.X+0.45*w, rc.Min.X+0.62*w
		r.cdf.Draw(draw.Crop(rc, pad, x0-rc.Max.X, pad, -pad))
		lc := draw.Crop(rc, x0-rc.Min.X+pad, x1-rc.Max.X, pad, -2*pad)
		r.legend.Draw(lc)
		r.over.Draw(draw.Crop(rc, x1-rc.Min.X+pad, -pad, pad, -pad))
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("rtbench: plot: %w", err)
	}
	if _, err := wt.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("rtbench: plot %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("rtbench: plot %s: %w", path, err)
	}
	return nil
}

// shorten returns s cut to at most n characters, the cut marked by "…".
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// cdfXYs returns the empirical CDF of d in milliseconds.
func cdfXYs(d dist) plotter.XYs {
	xy := make(plotter.XYs, len(d))
	for i, v := range d {
		xy[i].X = max(float64(v.Nanoseconds())/1e6, minPlotMS)
		xy[i].Y = float64(i+1) / float64(len(d))
	}
	return xy
}

// cdfPlot returns the CDF plot of r's phases and the legend of its series
// (drawn beside the plot, not in it).
func cdfPlot(r *result) (*plot.Plot, plot.Legend, error) {
	p := plot.New()
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	p.Title.Text = fmt.Sprintf("%s: latency CDF per phase", r.workload)
	p.X.Label.Text = "latency, ms (log)"
	p.Y.Label.Text = "fraction ≤ x"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(plotter.NewGrid())
	series := []struct {
		name string
		d    dist
	}{
		{"commit", r.commitDist()},
		{"data files", r.phaseDist(false)},
		{"metadata", r.phaseDist(true)},
		{"  manifests", r.commitPhaseDist(commit.PhaseManifests)},
		{"  manifest lists", r.commitPhaseDist(commit.PhaseManifestLists)},
		{"  snapshot publish", r.commitPhaseDist(commit.PhaseSnapshot)},
		{"freshness", r.freshness},
		{"union query", r.query},
		{"store PUT", r.floor.put},
		{"lookup freshness", r.lookupFresh},
	}
	for i, s := range series {
		if len(s.d) == 0 {
			continue
		}
		l, err := plotter.NewLine(cdfXYs(s.d))
		if err != nil {
			return nil, legend, err
		}
		l.Color = palette[i%len(palette)]
		l.Width = vg.Points(1.5)
		if i >= len(palette) {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(l)
		legend.Add(s.name, l)
	}
	return p, legend, nil
}

func timePlot(r *result) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %d commits (blue) and their data files (orange)", r.workload, len(r.commits))
	p.X.Label.Text = "time since the first Write, s"
	p.Y.Label.Text = "latency, ms"
	p.Add(plotter.NewGrid())
	total := make(plotter.XYs, len(r.commits))
	data := make(plotter.XYs, len(r.commits))
	for i, c := range r.commits {
		x := c.at.Seconds()
		total[i] = plotter.XY{X: x, Y: ms(c.total())}
		data[i] = plotter.XY{X: x, Y: ms(c.prepare)}
	}
	if len(r.commits) == 0 {
		return p, nil
	}
	for i, s := range []struct {
		name string
		xy   plotter.XYs
	}{{"commit", total}, {"data files", data}} { // palette[0] and [1], as in the CDF
		sc, err := plotter.NewScatter(s.xy)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color = palette[i]
		sc.GlyphStyle.Radius = vg.Points(1.5)
		p.Add(sc)
	}
	p.Y.Min = 0
	return p, nil
}
