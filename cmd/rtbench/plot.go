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
// snapshot publish, freshness, query, PUT.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff},
	{0x17, 0xbe, 0xcf, 0xff}, {0xbc, 0xbd, 0x22, 0xff}, {0x8c, 0x56, 0x4b, 0xff},
	{0xd6, 0x27, 0x28, 0xff}, {0x94, 0x67, 0xbd, 0xff}, {0x7f, 0x7f, 0x7f, 0xff},
}

// minPlotMS is the smallest latency drawn on the logarithmic axes.
const minPlotMS = 0.001

// writePlot draws, for each workload, the CDF of the latency of every
// phase (left) and commit latency over the run (right), as SVG or PNG by
// the file's extension.
func writePlot(path string, results []*result) error {
	var rows [][]*plot.Plot
	for _, r := range results {
		cdf, err := cdfPlot(r)
		if err != nil {
			return fmt.Errorf("rtbench: plot: %w", err)
		}
		over, err := timePlot(r)
		if err != nil {
			return fmt.Errorf("rtbench: plot: %w", err)
		}
		rows = append(rows, []*plot.Plot{cdf, over})
	}
	w, h := 28*vg.Centimeter, vg.Length(len(rows))*10*vg.Centimeter
	tiles := draw.Tiles{Rows: len(rows), Cols: 2, PadX: vg.Centimeter, PadY: vg.Centimeter,
		PadTop: vg.Millimeter * 3, PadBottom: vg.Millimeter * 3, PadLeft: vg.Millimeter * 3, PadRight: vg.Millimeter * 3}

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
	canvases := plot.Align(rows, tiles, dc)
	for i := range rows {
		for j := range rows[i] {
			rows[i][j].Draw(canvases[i][j])
		}
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

// cdfXYs returns the empirical CDF of d in milliseconds.
func cdfXYs(d dist) plotter.XYs {
	xy := make(plotter.XYs, len(d))
	for i, v := range d {
		xy[i].X = max(float64(v.Nanoseconds())/1e6, minPlotMS)
		xy[i].Y = float64(i+1) / float64(len(d))
	}
	return xy
}

func cdfPlot(r *result) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: latency CDF per phase (%s)", r.workload, r.store)
	p.X.Label.Text = "latency, ms (log)"
	p.Y.Label.Text = "fraction ≤ x"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.Top = false
	p.Legend.Left = false
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
	}
	for i, s := range series {
		if len(s.d) == 0 {
			continue
		}
		l, err := plotter.NewLine(cdfXYs(s.d))
		if err != nil {
			return nil, err
		}
		l.Color = palette[i%len(palette)]
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	return p, nil
}

func timePlot(r *result) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: commit latency over the run (%d commits)", r.workload, len(r.commits))
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
	}{{"commit", total}, {"data files", data}} {
		sc, err := plotter.NewScatter(s.xy)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color = palette[i]
		sc.GlyphStyle.Radius = vg.Points(1.5)
		p.Add(sc)
		p.Legend.Add(s.name, sc)
	}
	p.Legend.Top = true
	p.Y.Min = 0
	return p, nil
}
