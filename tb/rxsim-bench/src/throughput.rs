//! Parser throughput against frame size, counted in simulated cycles: back-to-back RC SEND
//! frames of one size to one QP, source never idle, verdict sink always ready. Every verdict
//! must be an accept and come exactly [`VERDICT_LATENCY`] cycles after its tlast beat.

use std::path::Path;

use plotters::prelude::*;
use rdmagen_harness::axil::Timing;
use rdmagen_harness::axis::SourceEvent;
use rdmagen_harness::stall::Profile;
use rdmagen_harness::Model;

use crate::rig::{QpSpec, Rig, VERDICT_LATENCY};
use crate::stimulus::{model_of, FrameSpec};

/// Frame sizes in bytes (Ethernet without FCS): the smallest RoCEv2 SEND (4-byte payload)
/// and sizes on and one past the 64- and 128-byte beat boundaries, up to 4 KB.
pub const SIZES: &[usize] = &[
    62, 64, 65, 96, 128, 129, 192, 256, 257, 384, 512, 513, 768, 1024, 1025, 1500, 2048, 2049,
    3072, 4096,
];

/// Headers and ICRC of an RC SEND-only frame over IPv4: 14 + 20 + 8 + 12 + 4.
const SEND_OVERHEAD: usize = 58;

/// One (width, size) measurement.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub width: u32,
    pub frame_bytes: usize,
    pub frames: u64,
    pub beats: u64,
    /// From the cycle the first beat was taken to the cycle the last one was, both included.
    pub cycles: u64,
}

impl Row {
    pub fn frames_per_cycle(&self) -> f64 {
        self.frames as f64 / self.cycles as f64
    }
    pub fn beats_per_cycle(&self) -> f64 {
        self.beats as f64 / self.cycles as f64
    }
    /// Frame bits per second at `clock_mhz`, in Gb/s.
    pub fn gbps(&self, clock_mhz: f64) -> f64 {
        self.frames_per_cycle() * self.frame_bytes as f64 * 8.0 * clock_mhz / 1000.0
    }
}

/// Measures every size of `sizes` on a fresh model `M`, `frames` frames each.
pub fn measure<M: Model>(sizes: &[usize], frames: usize) -> Result<Vec<Row>, String> {
    let mut rig = Rig::<M>::new(false, 7, Timing::default())?;
    let width = 8 * rig.data_bytes as u32;
    let qp = QpSpec {
        vf: 1,
        local: 3,
        st: 0,
        pd: 2,
        epsn: 0xFF_FFF0,
        mtu: 5,
    };
    rig.reset();
    rig.wait_qpc_ready()?;
    rig.create(std::slice::from_ref(&qp), &[])?;
    rig.configure()?;
    rig.traffic(1, Profile::NONE, Profile::NONE);
    let mut model = model_of(std::slice::from_ref(&qp), &[]);
    let mut rows = Vec::new();
    for &size in sizes {
        let payload = size
            .checked_sub(SEND_OVERHEAD)
            .ok_or_else(|| format!("{size} bytes: below the {SEND_OVERHEAD}-byte RoCEv2 SEND"))?;
        for _ in 0..frames {
            let psn = model.qps[&(qp.vf, qp.qpn())].epsn;
            let f = FrameSpec {
                opcode: 0x04,
                qpn: qp.qpn(),
                psn,
                payload,
                ..FrameSpec::default()
            };
            let bytes = f.bytes();
            assert_eq!(bytes.len(), size, "SEND frame length");
            let o = model.receive(&bytes, false, qp.vf);
            if o.verdict as u8 != 0 {
                return Err(format!(
                    "{size} bytes: the model does not accept the frame: {o:?}"
                ));
            }
            rig.source.send(&bytes, u64::from(qp.vf) << 1);
        }
        let (mut first, mut last, mut beats, mut got) = (None, 0u64, 0u64, 0usize);
        let mut tlast = std::collections::VecDeque::new();
        let start = rig.cycle;
        while got < frames {
            if rig.cycle - start > 100 * (frames as u64) * (size as u64 / 8 + 2) {
                return Err(format!("w{width} {size} B: {got} of {frames} verdicts"));
            }
            let cycle = rig.cycle;
            let s = rig.step();
            for SourceEvent::Beat { last: l, .. } in &s.beats {
                first.get_or_insert(cycle);
                last = cycle;
                beats += 1;
                if *l {
                    tlast.push_back(cycle);
                }
            }
            if let Some(v) = s.verdict {
                let t = tlast
                    .pop_front()
                    .ok_or("a verdict before its frame ended")?;
                if v.verdict != 0 || v.cycle != t + VERDICT_LATENCY {
                    return Err(format!(
                        "w{width} {size} B frame {got}: verdict {} (reason {}) in cycle {}, tlast in {t}",
                        v.verdict, v.reason, v.cycle
                    ));
                }
                got += 1;
            }
        }
        let first = first.ok_or("no beat taken")?;
        rows.push(Row {
            width,
            frame_bytes: size,
            frames: frames as u64,
            beats,
            cycles: last - first + 1,
        });
    }
    Ok(rows)
}

/// Line colours by width (matplotlib's tab10 blue, orange, green: readable on white).
const COLORS: [RGBColor; 3] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x2c, 0xa0, 0x2c),
];

/// The chart: Gb/s at `clock_mhz` against frame size, one line per width, with each
/// width's bus rate (width x clock) dashed.
pub fn svg(rows: &[Row], clock_mhz: f64, path: &Path) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let mut widths: Vec<u32> = rows.iter().map(|r| r.width).collect();
    widths.sort_unstable();
    widths.dedup();
    let bus = |w: u32| f64::from(w) * clock_mhz / 1000.0;
    let y_max = widths.iter().map(|w| bus(*w)).fold(1.0, f64::max) * 1.12;
    let x_min = rows.iter().map(|r| r.frame_bytes).min().unwrap_or(62) as f64;
    let x_max = rows.iter().map(|r| r.frame_bytes).max().unwrap_or(4096) as f64;
    let root = SVGBackend::new(path, (960, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("rx_top parser throughput vs frame size (sink always ready, {clock_mhz} MHz)"),
            ("sans-serif", 20),
        )
        .margin(12)
        .margin_right(36)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(
            (x_min * 0.95..x_max * 1.05)
                .log_scale()
                .with_key_points(vec![64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0]),
            0f64..y_max,
        )
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("frame size (bytes, Ethernet without FCS; log scale)")
        .y_desc("frame throughput (Gb/s)")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .light_line_style(WHITE.mix(0.0))
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| err(&e))?;
    for (i, w) in widths.iter().enumerate() {
        let color = COLORS[i % COLORS.len()].to_rgba();
        let pts: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.width == *w)
            .map(|r| (r.frame_bytes as f64, r.gbps(clock_mhz)))
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(|e| err(&e))?
            .label(format!("{w}-bit datapath (simulated)"))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
        chart
            .draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled())))
            .map_err(|e| err(&e))?;
        chart
            .draw_series(DashedLineSeries::new(
                [(x_min * 0.95, bus(*w)), (x_max * 1.05, bus(*w))],
                6,
                4,
                color.stroke_width(1),
            ))
            .map_err(|e| err(&e))?
            .label(format!(
                "{w} bits x {clock_mhz} MHz = {:.0} Gb/s bus",
                bus(*w)
            ))
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
