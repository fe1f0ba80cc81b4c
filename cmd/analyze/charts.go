package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/callpcap/callpcap/charts"
	"github.com/callpcap/callpcap/render"
	"github.com/callpcap/callpcap/report"
)

// writeCharts writes every chart of the report into dir, as SVG and PNG, named by
// render.ChartName (<capture>-<direction>-<kind>), and the comparison's ramps chart
// (render.RampsChartName), creating dir if need be.
func writeCharts(dir string, rep *report.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--charts: %w", err)
	}
	if ch, ok := render.RampsChart(rep); ok {
		if err := writeChart(filepath.Join(dir, render.RampsChartName), ch); err != nil {
			return err
		}
	}
	bases := render.ChartBases(rep)
	for i := range rep.Captures {
		c := &rep.Captures[i]
		for j := range c.Directions {
			for _, ch := range charts.ForDirection(&c.Directions[j], rep.Options.LateBudgetMS) {
				if err := writeChart(filepath.Join(dir, render.ChartName(bases[i], ch)), ch); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// writeChart writes name.svg and name.png.
func writeChart(name string, ch charts.Chart) error {
	var svg, png bytes.Buffer
	if err := ch.SVG(&svg); err != nil {
		return err
	}
	if err := ch.PNG(&png); err != nil {
		return err
	}
	if err := os.WriteFile(name+".svg", svg.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--charts: %w", err)
	}
	if err := os.WriteFile(name+".png", png.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--charts: %w", err)
	}
	return nil
}

// chartsLink is where the Markdown report links the charts: the charts directory relative
// to the report's own (the current directory when it goes to standard output); "" without
// --charts.
func chartsLink(dir, output string) string {
	if dir == "" {
		return ""
	}
	from := "."
	if output != "" {
		from = filepath.Dir(output)
	}
	absFrom, err1 := filepath.Abs(from)
	absDir, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(dir)
	}
	rel, err := filepath.Rel(absFrom, absDir)
	if err != nil {
		return filepath.ToSlash(dir)
	}
	return filepath.ToSlash(rel)
}
