//! The pin file: every input port of `rx_top` in every cycle, and the list of outputs each
//! replaying harness folds into its checksum.
//!
//! Format (text header, then binary):
//!
//! ```text
//! rdmagen-rxsim-pins 1
//! cycles <N>
//! inputs <name>:<width> ...          (the order of the words in a row)
//! fold <name>:<qualifier or -> ...   (the checksum's outputs, in order)
//! checksum <16 hex digits>           (what the recording run folded)
//! data
//! <N rows; a row is each input's ceil(width/32) 32-bit words, little-endian>
//! ```
//!
//! Checksum: `sum = sum * 31 + v` (wrapping, 64 bits) for each fold entry in order, in every
//! cycle with `rst` (the first input) low, after the inputs are applied and the logic
//! settled (before the clock edge), where
//! `v` is the output's value when its qualifier (a `valid`) is high or it has none, else 0.
//! Qualified fields are only looked at while valid, and reset cycles not at all, so a
//! 4-state simulator's X before reset or on an idle data output does not count.

use std::io::Write;
use std::path::Path;

/// Every input of `rx_top` except `clk`, in row order.
pub const INPUTS: &[&str] = &[
    "rst",
    "s_axil_awaddr",
    "s_axil_awprot",
    "s_axil_awvalid",
    "s_axil_wdata",
    "s_axil_wstrb",
    "s_axil_wvalid",
    "s_axil_bready",
    "s_axil_araddr",
    "s_axil_arprot",
    "s_axil_arvalid",
    "s_axil_rready",
    "s_axis_tdata",
    "s_axis_tkeep",
    "s_axis_tvalid",
    "s_axis_tlast",
    "s_axis_tuser",
    "m_hdr_ready",
    "m_pay_tready",
    "m_ack_ready",
    "qpc_s_axil_awaddr",
    "qpc_s_axil_awprot",
    "qpc_s_axil_awvalid",
    "qpc_s_axil_wdata",
    "qpc_s_axil_wstrb",
    "qpc_s_axil_wvalid",
    "qpc_s_axil_bready",
    "qpc_s_axil_araddr",
    "qpc_s_axil_arprot",
    "qpc_s_axil_arvalid",
    "qpc_s_axil_rready",
];

/// The outputs the checksum leaves out (see [`FOLD`]).
pub const UNFOLDED: &[&str] = &["m_pay_tdata"];

/// The checksum's outputs: (port, qualifier). Every output of `rx_top` except
/// `m_pay_tdata` (wider than the 64-bit fold; its beats are followed by `m_pay_tkeep`,
/// `m_pay_tlast` and `m_pay_tuser`).
pub const FOLD: &[(&str, Option<&str>)] = &[
    ("s_axil_awready", None),
    ("s_axil_wready", None),
    ("s_axil_bvalid", None),
    ("s_axil_bresp", Some("s_axil_bvalid")),
    ("s_axil_arready", None),
    ("s_axil_rvalid", None),
    ("s_axil_rdata", Some("s_axil_rvalid")),
    ("s_axil_rresp", Some("s_axil_rvalid")),
    ("s_axis_tready", None),
    ("m_hdr_valid", None),
    ("m_hdr_verdict", Some("m_hdr_valid")),
    ("m_hdr_reason", Some("m_hdr_valid")),
    ("m_hdr_vf", Some("m_hdr_valid")),
    ("m_hdr_opcode", Some("m_hdr_valid")),
    ("m_hdr_qpn", Some("m_hdr_valid")),
    ("m_hdr_psn", Some("m_hdr_valid")),
    ("m_hdr_se", Some("m_hdr_valid")),
    ("m_hdr_ack_req", Some("m_hdr_valid")),
    ("m_hdr_fecn", Some("m_hdr_valid")),
    ("m_hdr_becn", Some("m_hdr_valid")),
    ("m_hdr_pad", Some("m_hdr_valid")),
    ("m_hdr_va", Some("m_hdr_valid")),
    ("m_hdr_rkey", Some("m_hdr_valid")),
    ("m_hdr_dma_len", Some("m_hdr_valid")),
    ("m_hdr_imm", Some("m_hdr_valid")),
    ("m_hdr_src_qp", Some("m_hdr_valid")),
    ("m_hdr_ecn_ce", Some("m_hdr_valid")),
    ("m_hdr_cnp", Some("m_hdr_valid")),
    ("m_hdr_payload_len", Some("m_hdr_valid")),
    ("m_hdr_pay", Some("m_hdr_valid")),
    ("m_pay_tvalid", None),
    ("m_pay_tkeep", Some("m_pay_tvalid")),
    ("m_pay_tlast", Some("m_pay_tvalid")),
    ("m_pay_tuser", Some("m_pay_tvalid")),
    ("m_ack_valid", None),
    ("m_ack_vf", Some("m_ack_valid")),
    ("m_ack_qpn", Some("m_ack_valid")),
    ("m_ack_syndrome", Some("m_ack_valid")),
    ("m_ack_psn", Some("m_ack_valid")),
    ("cnp_valid", None),
    ("cnp_vf", Some("cnp_valid")),
    ("cnp_qpn", Some("cnp_valid")),
    ("ce_valid", None),
    ("ce_vf", Some("ce_valid")),
    ("ce_qpn", Some("ce_valid")),
    ("qpc_s_axil_awready", None),
    ("qpc_s_axil_wready", None),
    ("qpc_s_axil_bvalid", None),
    ("qpc_s_axil_bresp", Some("qpc_s_axil_bvalid")),
    ("qpc_s_axil_arready", None),
    ("qpc_s_axil_rvalid", None),
    ("qpc_s_axil_rdata", Some("qpc_s_axil_rvalid")),
    ("qpc_s_axil_rresp", Some("qpc_s_axil_rvalid")),
    ("qpc_irq_o", None),
];

/// One step of the checksum.
#[inline(always)]
pub fn fold(sum: u64, v: u64) -> u64 {
    sum.wrapping_mul(31).wrapping_add(v)
}

/// A recorded stimulus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PinFile {
    /// (name, width) of each input, in row order.
    pub inputs: Vec<(String, u32)>,
    /// (output, qualifier) of the checksum.
    pub fold: Vec<(String, Option<String>)>,
    /// What the recording run folded.
    pub checksum: u64,
    /// Rows of `words_per_cycle()` words.
    pub data: Vec<u32>,
}

impl PinFile {
    pub fn words_per_cycle(&self) -> usize {
        self.inputs
            .iter()
            .map(|(_, w)| w.div_ceil(32) as usize)
            .sum()
    }

    pub fn cycles(&self) -> usize {
        self.data.len() / self.words_per_cycle().max(1)
    }

    /// Start word of each input in a row, plus the row length at the end.
    pub fn offsets(&self) -> Vec<usize> {
        let mut v = vec![0];
        for (_, w) in &self.inputs {
            v.push(v.last().copied().unwrap_or(0) + w.div_ceil(32) as usize);
        }
        v
    }

    fn header(&self) -> String {
        let inputs: Vec<String> = self
            .inputs
            .iter()
            .map(|(n, w)| format!("{n}:{w}"))
            .collect();
        let fold: Vec<String> = self
            .fold
            .iter()
            .map(|(n, q)| format!("{n}:{}", q.as_deref().unwrap_or("-")))
            .collect();
        format!(
            "rdmagen-rxsim-pins 1\ncycles {}\ninputs {}\nfold {}\nchecksum {:016x}\ndata\n",
            self.cycles(),
            inputs.join(" "),
            fold.join(" "),
            self.checksum
        )
    }

    pub fn write(&self, path: &Path) -> Result<(), String> {
        let err = |e: std::io::Error| format!("{}: {e}", path.display());
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(err)?;
        }
        let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(err)?);
        f.write_all(self.header().as_bytes()).map_err(err)?;
        for w in &self.data {
            f.write_all(&w.to_le_bytes()).map_err(err)?;
        }
        f.flush().map_err(err)
    }

    pub fn read(path: &Path) -> Result<PinFile, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let bad = |what: &str| format!("{}: not a pin file ({what})", path.display());
        let mut rest = &bytes[..];
        let mut line = || -> Result<String, String> {
            let n = rest
                .iter()
                .position(|b| *b == b'\n')
                .ok_or_else(|| bad("header ends early"))?;
            let l = String::from_utf8(rest[..n].to_vec()).map_err(|_| bad("header not UTF-8"))?;
            rest = &rest[n + 1..];
            Ok(l)
        };
        if line()? != "rdmagen-rxsim-pins 1" {
            return Err(bad("first line"));
        }
        let field = |l: String, key: &str| -> Result<String, String> {
            l.strip_prefix(key)
                .and_then(|r| r.strip_prefix(' '))
                .map(str::to_string)
                .ok_or_else(|| bad(key))
        };
        let cycles: usize = field(line()?, "cycles")?
            .parse()
            .map_err(|_| bad("cycles"))?;
        let inputs = field(line()?, "inputs")?
            .split_whitespace()
            .map(|t| {
                let (n, w) = t.split_once(':').ok_or_else(|| bad("inputs"))?;
                Ok((n.to_string(), w.parse().map_err(|_| bad("input width"))?))
            })
            .collect::<Result<Vec<(String, u32)>, String>>()?;
        let fold = field(line()?, "fold")?
            .split_whitespace()
            .map(|t| {
                let (n, q) = t.split_once(':').ok_or_else(|| bad("fold"))?;
                Ok((n.to_string(), (q != "-").then(|| q.to_string())))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let checksum =
            u64::from_str_radix(&field(line()?, "checksum")?, 16).map_err(|_| bad("checksum"))?;
        if line()? != "data" {
            return Err(bad("data line"));
        }
        let mut pf = PinFile {
            inputs,
            fold,
            checksum,
            data: Vec::new(),
        };
        if rest.len() != 4 * cycles * pf.words_per_cycle() {
            return Err(bad("data length"));
        }
        pf.data = rest
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok(pf)
    }

    /// An error unless the file's port lists are [`INPUTS`] and [`FOLD`] in order.
    pub fn check_lists(&self) -> Result<(), String> {
        let names: Vec<&str> = self.inputs.iter().map(|(n, _)| n.as_str()).collect();
        if names != INPUTS {
            return Err(format!(
                "pin file inputs {names:?}, this harness drives {INPUTS:?}"
            ));
        }
        let fold: Vec<(&str, Option<&str>)> = self
            .fold
            .iter()
            .map(|(n, q)| (n.as_str(), q.as_deref()))
            .collect();
        if fold != FOLD {
            return Err("pin file fold list differs from this harness's".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pin_files_round_trip() {
        let pf = PinFile {
            inputs: vec![("rst".into(), 1), ("s_axis_tdata".into(), 70)],
            fold: vec![("a".into(), None), ("b".into(), Some("a".into()))],
            checksum: 0xdead_beef_0123_4567,
            data: vec![1, 2, 3, 4, 5, 6, 7, 8],
        };
        assert_eq!(pf.words_per_cycle(), 4);
        assert_eq!(pf.cycles(), 2);
        assert_eq!(pf.offsets(), vec![0, 1, 4]);
        let dir = std::env::temp_dir().join(format!("rxsim-pins-{}", std::process::id()));
        let path = dir.join("t.pins");
        pf.write(&path).unwrap();
        assert_eq!(PinFile::read(&path).unwrap(), pf);
        std::fs::write(&path, b"rdmagen-rxsim-pins 1\ncycles 9\n").unwrap();
        assert!(PinFile::read(&path).is_err());
        let _ = std::fs::remove_dir_all(dir);
    }
}
