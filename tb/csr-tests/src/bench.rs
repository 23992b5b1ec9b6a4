//! One Verilated CSR block next to its reference model, driven cycle by cycle.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use proptest::test_runner::{
    Config, FileFailurePersistence, RngSeed, TestCaseError, TestError, TestRunner,
};
use rdmagen_harness::axil::{AxiLiteMaster, AxiLitePins, Event};
use rdmagen_harness::{HasAxiLite, Model, RawPort};
use rdmagen_refmodel::bits;
use rdmagen_refmodel::csr::{Bus, CounterHits, CsrModel, HwKind};
use rdmagen_regmap::RegMap;

use crate::case::{strategy, Case, Layout, Op};

/// A disagreement between the RTL and the model, or a protocol violation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub cycle: u64,
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cycle {}: {}", self.cycle, self.message)
    }
}

/// Cycles a drained case may take before the bench calls it a hang.
const HANG_LIMIT: u64 = 200_000;

pub struct Bench<M: Model + HasAxiLite> {
    model: CsrModel,
    hw_ports: Vec<RawPort>,
    out_ports: Vec<RawPort>,
    hw: Vec<Vec<u32>>,
    want: Vec<u32>,
    got: Vec<u32>,
    events: Vec<Event>,
    expect_b: HashMap<u64, u8>,
    expect_r: HashMap<u64, (u64, u8)>,
    /// Accepted reads the model has not answered yet, oldest first (reads answer in order).
    read_tags: VecDeque<u64>,
    /// Address of each accepted read, by tag, until it completes.
    read_addrs: HashMap<u64, u64>,
    /// The reads of the last case, in the order they completed: (address, RDATA). Every one
    /// has already matched the model; directed tests also check the values themselves.
    pub reads: Vec<(u64, u64)>,
    cycle: u64,
    /// Cycles run over the life of the bench.
    pub total_cycles: u64,
    // Last: the ports above point into it.
    dut: M,
}

impl<M: Model + HasAxiLite> Bench<M> {
    pub fn new(map: &RegMap) -> Result<Self, String> {
        let dut = M::create();
        let model = CsrModel::new(map, M::PARAMS).map_err(|e| e.to_string())?;
        let resolve = |name: &str, width: u32, input: bool| -> Result<RawPort, String> {
            let p = dut
                .port(name)
                .ok_or_else(|| format!("{}: the RTL has no port `{name}`", M::VARIANT))?;
            if p.width() != width || p.is_input() != input {
                return Err(format!(
                    "{}: port `{name}` is {} bits {}, the model expects {width} bits {}",
                    M::VARIANT,
                    p.width(),
                    if p.is_input() { "in" } else { "out" },
                    if input { "in" } else { "out" }
                ));
            }
            // SAFETY: the bench owns `dut` and drops the ports with it.
            Ok(unsafe { p.detach() })
        };
        let hw_ports = model
            .hw_ports()
            .iter()
            .map(|p| resolve(&p.name, p.total_width(), true))
            .collect::<Result<Vec<_>, _>>()?;
        let out_ports = model
            .out_ports()
            .iter()
            .map(|p| resolve(&p.name, p.width, false))
            .collect::<Result<Vec<_>, _>>()?;
        // Every RTL port must be one the model knows: nothing extra, nothing missing.
        for p in M::PORTS {
            let known = p.name == "clk"
                || p.name == "rst"
                || p.name == "rst_n"
                || p.name.starts_with("s_axil_")
                || model.hw_ports().iter().any(|h| h.name == p.name)
                || model.out_ports().iter().any(|o| o.name == p.name);
            if !known {
                return Err(format!(
                    "{}: RTL port `{}` is not in the model",
                    M::VARIANT,
                    p.name
                ));
            }
        }
        let hw = model
            .hw_ports()
            .iter()
            .map(|p| vec![0; bits::words(p.total_width())])
            .collect();
        let widest = model.out_ports().iter().map(|p| p.width).max().unwrap_or(1);
        Ok(Bench {
            model,
            hw_ports,
            out_ports,
            hw,
            want: vec![0; bits::words(widest)],
            got: vec![0; bits::words(widest)],
            events: Vec::new(),
            expect_b: HashMap::new(),
            expect_r: HashMap::new(),
            read_tags: VecDeque::new(),
            read_addrs: HashMap::new(),
            reads: Vec::new(),
            cycle: 0,
            total_cycles: 0,
            dut,
        })
    }

    pub fn layout(&self) -> Layout {
        Layout::of(&self.model)
    }

    pub fn dut_mut(&mut self) -> &mut M {
        &mut self.dut
    }

    /// What the counters' increments reached over every case run so far (the model's tally).
    pub fn counter_hits(&self) -> Vec<(String, u32, CounterHits)> {
        self.model.counter_hits()
    }

    fn fail<T>(&self, message: String) -> Result<T, Failure> {
        Err(Failure {
            cycle: self.cycle,
            message,
        })
    }

    /// Runs one case from reset.
    pub fn run(&mut self, case: &Case) -> Result<(), Failure> {
        self.dut.reset(2);
        self.model.reset();
        self.hw.iter_mut().for_each(|w| w.fill(0));
        self.expect_b.clear();
        self.expect_r.clear();
        self.read_tags.clear();
        self.read_addrs.clear();
        self.reads.clear();
        self.cycle = 0;
        self.compare_outputs()?;
        let mut master = AxiLiteMaster::new(case.seed, case.timing);
        for op in &case.ops {
            match *op {
                Op::Write { addr, data, strb } => {
                    master.write(addr, u64::from(data), strb);
                }
                Op::Read { addr } => {
                    master.read(addr);
                }
                Op::Hw {
                    port,
                    elem,
                    value,
                    cycles,
                } => {
                    let p = &self.model.hw_ports()[port];
                    let (w, kind) = (p.width, p.kind);
                    bits::set(&mut self.hw[port], elem * w, w, value & bits::ones(w));
                    for _ in 0..cycles.max(1) {
                        self.step(&mut master)?;
                    }
                    if !matches!(kind, HwKind::Input | HwKind::LoadData) {
                        bits::set(&mut self.hw[port], elem * w, w, 0);
                    }
                }
                Op::Idle(n) => {
                    for _ in 0..n {
                        self.step(&mut master)?;
                    }
                }
            }
        }
        let start = self.cycle;
        while !master.is_idle() {
            if self.cycle - start > HANG_LIMIT {
                return self.fail(format!(
                    "{} transfers still pending after {HANG_LIMIT} cycles: the slave hangs",
                    master.pending()
                ));
            }
            self.step(&mut master)?;
        }
        // A few quiet cycles: nothing may change on its own.
        for _ in 0..2 {
            self.step(&mut master)?;
        }
        Ok(())
    }

    fn step(&mut self, master: &mut AxiLiteMaster) -> Result<(), Failure> {
        for (p, v) in self.hw_ports.iter().zip(&self.hw) {
            // SAFETY: the bench owns the model.
            unsafe { p.get() }.write(v);
        }
        master.drive(&self.dut.axil());
        self.dut.eval();
        // The read's timing exactly: RVALID as the model's read stages say, cycle by cycle.
        let rvalid = self.dut.axil().r().is_some();
        if rvalid != self.model.rvalid() {
            return self.fail(format!(
                "RVALID {}, the model's read timing expects {}",
                u8::from(rvalid),
                u8::from(self.model.rvalid())
            ));
        }
        self.events.clear();
        master.observe(&self.dut.axil(), &mut self.events);
        let mut bus = Bus::default();
        let mut wtag = 0;
        for e in &self.events {
            match *e {
                Event::WriteAccepted {
                    tag,
                    addr,
                    data,
                    strb,
                } => {
                    bus.write = Some((addr, data, strb));
                    wtag = tag;
                }
                Event::ReadAccepted { tag, addr } => {
                    bus.read = Some(addr);
                    self.read_tags.push_back(tag);
                    self.read_addrs.insert(tag, addr);
                }
                // An R handshake: RREADY with RVALID, all the model needs of RREADY.
                Event::ReadDone { .. } => bus.rready = true,
                _ => {}
            }
        }
        let (wr, rd) = self.model.cycle(bus, &self.hw);
        if let Some(resp) = wr {
            self.expect_b.insert(wtag, resp);
        }
        if let Some(r) = rd {
            // The model answers the oldest accepted read (never the one accepted just now).
            match self.read_tags.pop_front() {
                Some(tag) => {
                    self.expect_r.insert(tag, r);
                }
                None => return self.fail("the model answers a read never accepted".into()),
            }
        }
        for i in 0..self.events.len() {
            match self.events[i] {
                Event::WriteDone { tag, resp } => {
                    let want = self.expect_b.remove(&tag);
                    if want != Some(resp) {
                        return self.fail(format!(
                            "write #{tag}: BRESP {resp}, the model expects {want:?}"
                        ));
                    }
                }
                Event::ReadDone { tag, data, resp } => {
                    let want = self.expect_r.remove(&tag);
                    if want != Some((data, resp)) {
                        return self.fail(format!(
                            "read #{tag}: RDATA {data:#010x} RRESP {resp}, the model expects {}",
                            want.map_or("no response".into(), |(d, r)| format!(
                                "RDATA {d:#010x} RRESP {r}"
                            ))
                        ));
                    }
                    let addr = self.read_addrs.remove(&tag).unwrap_or(u64::MAX);
                    self.reads.push((addr, data));
                }
                _ => {}
            }
        }
        if let Some(v) = master.violations().first() {
            return self.fail(format!("AXI4-Lite protocol: {v}"));
        }
        self.dut.tick();
        self.cycle += 1;
        self.total_cycles += 1;
        self.compare_outputs()
    }

    fn compare_outputs(&mut self) -> Result<(), Failure> {
        for i in 0..self.out_ports.len() {
            let n = bits::words(self.out_ports[i].width());
            self.model.output(i, &mut self.want[..n]);
            // SAFETY: the bench owns the model.
            unsafe { self.out_ports[i].get() }.read(&mut self.got[..n]);
            if self.want[..n] != self.got[..n] {
                let name = &self.model.out_ports()[i].name;
                let hex = |w: &[u32]| {
                    w.iter().rev().fold(String::from("0x"), |mut s, x| {
                        let _ = write!(s, "{x:08x}");
                        s
                    })
                };
                return self.fail(format!(
                    "output `{name}`: RTL {}, model {}",
                    hex(&self.got[..n]),
                    hex(&self.want[..n])
                ));
            }
        }
        Ok(())
    }
}

/// Where failing cases and their waveforms go: `target/tb-failures/`.
pub fn failure_dir() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/tb-failures");
    let _ = std::fs::create_dir_all(&root);
    root.canonicalize().unwrap_or(root)
}

fn load_map(variant: &str) -> RegMap {
    let path = crate::VARIANT_MAPS
        .iter()
        .find(|(v, _)| *v == variant)
        .map(|(_, f)| Path::new(f))
        .unwrap_or_else(|| panic!("unknown variant {variant}"));
    rdmagen_regmap::load(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Reruns `case` on a fresh model with an FST waveform.
fn trace<M: Model + HasAxiLite>(map: &RegMap, case: &Case, fst: &Path) -> Result<(), Failure> {
    let mut b = Bench::<M>::new(map).map_err(|message| Failure { cycle: 0, message })?;
    if let Err(e) = b.dut.trace_open(fst) {
        eprintln!("warning: {e}");
    }
    let r = b.run(case);
    b.dut.trace_close();
    r
}

/// Saves the case, reruns it with a waveform, and panics with the rerun command.
fn report<M: Model + HasAxiLite>(
    map: &RegMap,
    test: &str,
    layout: &Layout,
    case: &Case,
    why: &str,
) -> ! {
    let dir = failure_dir();
    let case_path = dir.join(format!("{}.case", M::VARIANT));
    let fst = dir.join(format!("{}.fst", M::VARIANT));
    let text = case.to_text(M::VARIANT, layout);
    let _ = std::fs::write(&case_path, &text);
    let traced = trace::<M>(map, case, &fst);
    panic!(
        "{variant}: {why}\n\nminimal case ({n} ops), saved to {case}:\n{text}\nreplayed with a waveform: {replay}\n  waveform: {fst}\n  rerun:    RDMAGEN_CASE={case} cargo test -p rdmagen-csr-tests --test csr_props -- --exact {test}\n",
        variant = M::VARIANT,
        n = case.ops.len(),
        case = case_path.display(),
        replay = match traced {
            Ok(()) => "passed (the failure depends on state before reset?)".to_string(),
            Err(f) => format!("fails again at {f}"),
        },
        fst = fst.display(),
    );
}

/// Runs a saved case (a committed regression or a `RDMAGEN_CASE` file).
pub fn replay<M: Model + HasAxiLite>(test: &str, text: &str) {
    let map = load_map(M::VARIANT);
    let mut b = Bench::<M>::new(&map).unwrap_or_else(|e| panic!("{e}"));
    let layout = b.layout();
    let (variant, case) = Case::parse(text, &layout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        variant,
        M::VARIANT,
        "the case was recorded on another variant"
    );
    if let Err(f) = b.run(&case) {
        report::<M>(&map, test, &layout, &case, &f.to_string());
    }
}

/// The property test of one variant: `cases` random cases on one reused model. Returns what
/// the counters' increments reached over all cases ([`Bench::counter_hits`]).
///
/// With `RDMAGEN_CASE=path` set, runs only that saved case instead (and returns no tallies).
pub fn check<M: Model + HasAxiLite>(test: &str, cases: u32) -> Vec<(String, u32, CounterHits)> {
    check_seeded::<M>(test, cases, None)
}

/// [`check`] from a fixed seed when `seed` is given: the same cases every run, for a test that
/// asserts what the random cases reach (a random seed would miss a rare event now and then).
pub fn check_seeded<M: Model + HasAxiLite>(
    test: &str,
    cases: u32,
    seed: Option<u64>,
) -> Vec<(String, u32, CounterHits)> {
    if let Ok(path) = std::env::var("RDMAGEN_CASE") {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        replay::<M>(test, &text);
        return Vec::new();
    }
    let map = load_map(M::VARIANT);
    let bench = Bench::<M>::new(&map).unwrap_or_else(|e| panic!("{e}"));
    let layout = bench.layout();
    let bench = RefCell::new(bench);
    let persistence: &'static str = Box::leak(
        format!(
            "{}/proptest-regressions/{}.txt",
            env!("CARGO_MANIFEST_DIR"),
            M::VARIANT
        )
        .into_boxed_str(),
    );
    let config = Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(persistence))),
        max_shrink_iters: 4096,
        rng_seed: seed.map_or(RngSeed::Random, RngSeed::Fixed),
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let result = runner.run(&strategy(&layout, 120), |case| {
        bench
            .borrow_mut()
            .run(&case)
            .map_err(|f| TestCaseError::fail(f.to_string()))
    });
    match result {
        Ok(()) => {
            let bench = bench.into_inner();
            eprintln!(
                "{}: {cases} cases, {} cycles",
                M::VARIANT,
                bench.total_cycles
            );
            let hits = bench.counter_hits();
            for (name, width, h) in hits.iter().filter(|(_, w, _)| *w > 32) {
                eprintln!(
                    "  {name} ({width} bits): {} low-half carries, {} past all ones",
                    h.low_carry, h.overflow
                );
            }
            hits
        }
        Err(TestError::Fail(why, case)) => {
            report::<M>(&map, test, &layout, &case, &why.to_string())
        }
        Err(TestError::Abort(why)) => panic!("{}: proptest aborted: {why}", M::VARIANT),
    }
}
