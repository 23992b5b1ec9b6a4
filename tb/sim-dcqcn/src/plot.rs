//! The trajectory chart: Rc (solid) and Rt (dashed) in Gb/s over time, one colour per flow.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;

use crate::run::Row;

/// Writes an SVG chart of `rows` to `path`. `title` goes above the plot.
pub fn svg(rows: &[Row], line_rate_mbps: u32, title: &str, path: &Path) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let mut by_flow: BTreeMap<u32, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        by_flow.entry(r.flow).or_default().push(r);
    }
    let t_max = rows.iter().map(|r| r.t_us).max().unwrap_or(0).max(1);
    let gbps = |fx: u32| f64::from(fx) / 256.0 / 1000.0;
    let y_max = rows
        .iter()
        .map(|r| gbps(r.rt.max(r.rc)))
        .fold(f64::from(line_rate_mbps) / 1000.0, f64::max)
        * 1.08;

    let root = SVGBackend::new(path, (960, 540)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .margin_right(36)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..f64::from(t_max), 0f64..y_max)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("time (µs)")
        .y_desc("rate (Gb/s)")
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| err(&e))?;
    for (i, (flow, rs)) in by_flow.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let rc: Vec<(f64, f64)> = rs.iter().map(|r| (f64::from(r.t_us), gbps(r.rc))).collect();
        let rt: Vec<(f64, f64)> = rs.iter().map(|r| (f64::from(r.t_us), gbps(r.rt))).collect();
        chart
            .draw_series(LineSeries::new(rc, color.stroke_width(2)))
            .map_err(|e| err(&e))?
            .label(format!("flow {flow} Rc"))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
        chart
            .draw_series(DashedLineSeries::new(rt, 6, 4, color.stroke_width(1)))
            .map_err(|e| err(&e))?
            .label(format!("flow {flow} Rt"))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(1)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
