//! Named device profiles from the papers, and [`DeviceSpec`]: a profile plus
//! `--device-set K=V` overrides, turned into a [`Storage`].
//!
//! | profile | page | pages/block | read | write | erase | source |
//! |---|---|---|---|---|---|---|
//! | `slc-small` | 512 B | 32 | 348 µs, 99 µJ | 909 µs, 237.6 µJ | 1,881 µs, 422.4 µJ | Wu et al. 2003 Table 1 (= Roh et al. 2009 Table 1, SLC small block) |
//! | `slc-large` | 2 KiB | 64 | 78 µs | 253 µs | 1,500 µs | Roh et al. 2009 Table 1 (no energy given: 0) |
//! | `mlc` | 4 KiB | 128 | 166 µs | 906 µs | 1,500 µs | Roh et al. 2009 Table 1 (no energy given: 0) |
//! | `toshiba-byte` | 512 B | 32 | 69 µs + 1.759 µs/B; 4.07 µJ + 0.105 µJ/B | 274 µs + 1.577 µs/B; 24.54 µJ + 0.0962 µJ/B | 2.5% of a block write | Agrawal et al. 2009 Table 1 and §5.2 |
//! | `samsung-large` | 4 KiB | 16 | 25 µs + 0.042 µs/B; 7.78 µJ + 0.002 µJ/B | 94.4 µs + 0.042 µs/B; 2.06 µJ + 0.002 µJ/B | 2.5% of a block write | Agrawal et al. 2009 Table 1 |
//!
//! The Buffered-B+ paper gives no erase cost in Table 1; its §5.2 says a
//! block erase of the Toshiba part costs "approximately 2.5% of the block
//! write cost", so both byte-level profiles charge an erase 2.5% of writing
//! every byte of the block (see `docs/DEVIATIONS.md`).
//!
//! Defaults: `nop` 4 for the SLC parts, 1 for MLC (MLC parts forbid
//! partial programs) and 1 for `toshiba-byte` (Agrawal et al. 2009 §6:
//! "This flash does not allow any page rewrites"); 16 spare bytes per page;
//! greedy GC; 7% over-provisioning. The
//! default capacity is 64 GiB of chip: storage is sparse, so that costs
//! nothing until written and any workload fits; `blocks=N` sets it exactly.
//! Size parameters (`capacity`, `page_size`, `spare_size`) take bytes or a
//! unit, as every size flag does ([`super::size`]): `capacity=64KiB` is
//! 65,536 bytes, `capacity=64KB` 64,000.
//! The command line (`run`, `compare`) sizes an FTL device whose size was
//! not chosen to the work instead (`cli::sizing`), since on 64 GiB no index
//! ever collects garbage.
//!
//! Endurance (erases a block survives, [`Profile::endurance_source`] says
//! where each figure comes from). No datasheet was at hand for any part, so
//! every figure is one of the papers':
//!
//! | profile | endurance | source |
//! |---|---|---|
//! | `slc-small` | 1,000,000 | Wu et al. 2003 §2.1: "a block of a typical NAND flash memory could be erased for 1 million (10^6) times" (the chip of its Table 1) |
//! | `slc-large` | 100,000 | Roh et al. 2009 §1's "10,000–1,000,000" range, its middle decade (no part named) |
//! | `mlc` | 10,000 | Roh et al. 2009 §1's range, its low end (MLC: fewer cycles than SLC) |
//! | `toshiba-byte`, `samsung-large` | 100,000 | Roh et al. 2009 §1's range, its middle decade (datasheet not at hand) |
//!
//! `--device-set endurance=N` puts in a datasheet's figure.

use std::path::PathBuf;

use super::cost::CostModel;
use super::file::FileDevice;
use super::ftl::{Ftl, FtlConfig, GcPolicy};
use super::nand::Nand;
use super::precondition::Preconditioned;
use super::ssd::{ssd_profile, ssd_profiles, Ssd, SsdTiming};
use super::{DeviceError, Geometry, Result, Storage};

/// A named chip: geometry and cost model.
#[derive(Clone, Debug)]
pub struct Profile {
    pub name: &'static str,
    pub description: &'static str,
    pub geometry: Geometry,
    pub cost: CostModel,
    /// Where `geometry.endurance` comes from (module doc).
    pub endurance_source: &'static str,
}

/// Wu et al. 2003 §2.1's endurance.
const BFTL_MILLION: &str = "Wu et al. 2003 §2.1: \"a block of a typical NAND flash memory could be erased for 1 million (10^6) times\"";
/// Roh et al. 2009 §1's range, its middle decade.
const MBTREE_RANGE_MIDDLE: &str = "Roh et al. 2009 §1: \"about 10,000-1,000,000\" erases, the range's middle decade (no datasheet at hand)";

const DEFAULT_BYTES: u64 = 64 << 30;

fn byte_level(
    page: u32,
    ppb: u32,
    read: (f64, f64, f64, f64),
    write: (f64, f64, f64, f64),
) -> CostModel {
    let (read_us, read_us_b, read_uj, read_uj_b) = read;
    let (write_us, write_us_b, write_uj, write_uj_b) = write;
    let block_bytes = page as f64 * ppb as f64;
    let block_write_us = ppb as f64 * write_us + block_bytes * write_us_b;
    let block_write_uj = ppb as f64 * write_uj + block_bytes * write_uj_b;
    CostModel {
        read_us,
        read_us_per_byte: read_us_b,
        write_us,
        write_us_per_byte: write_us_b,
        erase_us: 0.025 * block_write_us,
        read_uj,
        read_uj_per_byte: read_uj_b,
        write_uj,
        write_uj_per_byte: write_uj_b,
        erase_uj: 0.025 * block_write_uj,
    }
}

fn page_level(read: (f64, f64), write: (f64, f64), erase: (f64, f64)) -> CostModel {
    CostModel {
        read_us: read.0,
        read_uj: read.1,
        write_us: write.0,
        write_uj: write.1,
        erase_us: erase.0,
        erase_uj: erase.1,
        ..CostModel::FREE
    }
}

fn geometry(page_size: u32, pages_per_block: u32, nop: u8, endurance: u64) -> Geometry {
    let block_bytes = page_size as u64 * pages_per_block as u64;
    Geometry {
        page_size,
        pages_per_block,
        blocks: DEFAULT_BYTES / block_bytes,
        spare_size: 16,
        nop,
        endurance,
    }
}

/// Every named profile.
pub fn profiles() -> Vec<Profile> {
    vec![
        Profile {
            name: "slc-small",
            description: "SLC small-block NAND, 512 B pages, 16 KiB blocks; 348/909/1881 us, 99/237.6/422.4 uJ (Wu et al. 2003 Table 1)",
            geometry: geometry(512, 32, 4, 1_000_000),
            cost: page_level((348.0, 99.0), (909.0, 237.6), (1881.0, 422.4)),
            endurance_source: BFTL_MILLION,
        },
        Profile {
            name: "slc-large",
            description: "SLC large-block NAND, 2 KiB pages, 128 KiB blocks; 78/253/1500 us, no energy figures (Roh et al. 2009 Table 1)",
            geometry: geometry(2048, 64, 4, 100_000),
            cost: page_level((78.0, 0.0), (253.0, 0.0), (1500.0, 0.0)),
            endurance_source: MBTREE_RANGE_MIDDLE,
        },
        Profile {
            name: "mlc",
            description: "MLC NAND, 4 KiB pages, 512 KiB blocks; 166/906/1500 us, no energy figures (Roh et al. 2009 Table 1)",
            geometry: geometry(4096, 128, 1, 10_000),
            cost: page_level((166.0, 0.0), (906.0, 0.0), (1500.0, 0.0)),
            endurance_source: "Roh et al. 2009 §1: \"about 10,000-1,000,000\" erases, the range's low end for MLC (no datasheet at hand)",
        },
        Profile {
            name: "toshiba-byte",
            description: "Toshiba TC58DVG02A1FT00 small-block NAND with byte-level costs, 512 B pages, 16 KiB blocks (Agrawal et al. 2009 Table 1)",
            // §6: "This flash does not allow any page rewrites": nop = 1.
            geometry: geometry(512, 32, 1, 100_000),
            cost: byte_level(512, 32, (69.0, 1.759, 4.07, 0.105), (274.0, 1.577, 24.54, 0.0962)),
            endurance_source: MBTREE_RANGE_MIDDLE,
        },
        Profile {
            name: "samsung-large",
            description: "Samsung K9F1208X0C large-block NAND with byte-level costs, 4 KiB pages, 64 KiB blocks (Agrawal et al. 2009 Table 1)",
            geometry: geometry(4096, 16, 4, 100_000),
            cost: byte_level(4096, 16, (25.0, 0.042, 7.78, 0.002), (94.4, 0.042, 2.06, 0.002)),
            endurance_source: MBTREE_RANGE_MIDDLE,
        },
    ]
}

/// Looks a profile up by name; the error lists the known ones.
pub fn profile(name: &str) -> Result<Profile> {
    profiles()
        .into_iter()
        .find(|p| p.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = profiles()
                .iter()
                .map(|p| p.name)
                .chain(ssd_profiles().iter().map(|p| p.name))
                .collect();
            DeviceError::Config(format!(
                "unknown device profile `{name}`; known: {} (or raw:PROFILE, file:PATH)",
                names.join(", ")
            ))
        })
}

/// Where the endurance of `spec`'s chip comes from: its profile's source,
/// or `--device-set endurance=N` when that changed it; `None` for a
/// device without a simulated chip (an SSD model, a file).
pub fn endurance_source(spec: &DeviceSpec) -> Option<String> {
    if matches!(spec.target, Target::Ssd | Target::File(_)) {
        return None;
    }
    let name = spec.name.strip_prefix("raw:").unwrap_or(&spec.name);
    let p = profile(name).ok()?;
    Some(if p.geometry.endurance == spec.geometry.endurance {
        p.endurance_source.to_string()
    } else {
        "--device-set endurance".to_string()
    })
}

/// Where the pages live.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// FTL over a simulated chip.
    Ftl,
    /// The raw simulated chip.
    Raw,
    /// A real file.
    File(PathBuf),
    /// The SSD timing model ([`super::ssd`]) of [`DeviceSpec::ssd`].
    Ssd,
}

/// A device description: profile, overrides and target.
#[derive(Clone, Debug)]
pub struct DeviceSpec {
    pub name: String,
    pub target: Target,
    pub geometry: Geometry,
    pub cost: CostModel,
    pub ftl: FtlConfig,
    /// For files: logical pages (0 = no limit below what the disk holds).
    pub file_pages: u64,
    /// Whether `blocks=` or `capacity=` chose the size (else the sparse
    /// 64 GiB default, which the command line sizes to the work).
    pub explicit_size: bool,
    /// Whether indexes run over the shadow-paging commit layer
    /// ([`super::Shadow`]): atomic flushes and checked reads. Always on
    /// for files (one on-disk format: a file is a store; only an
    /// experiment's scratch file, which nothing opens again, measures
    /// an index's bare requests on the disk); off by default on the
    /// simulated FTL, whose page counts the paper experiments compare
    /// (`--device-set atomic=true` turns it on); never on a raw chip.
    pub atomic: bool,
    /// For an SSD profile: its timing model.
    pub ssd: Option<SsdTiming>,
    /// The commit layer's write-ahead log (`store::logged`): bytes of log
    /// after which a flush checkpoints. [`super::shadow::DEFAULT_LOG_BYTES`]
    /// on files; 0 (no log, every flush commits) on the simulated devices,
    /// whose page counts the paper experiments compare; `--device-set
    /// log_bytes=SIZE` sets it wherever the commit layer is on.
    pub log_bytes: u64,
    /// For files: bypass the page cache (`O_DIRECT`), to measure the disk
    /// itself; off by default (buffered I/O, durable at each sync).
    pub direct: bool,
    /// Pages of cold data written at the top of the logical space of an
    /// FTL device before an index is built on it ([`Preconditioned`]); 0
    /// for none, the default.
    pub cold_pages: u64,
}

/// Keys `--device-set` accepts.
pub const DEVICE_KEYS: [&str; 11] = [
    "atomic",
    "direct",
    "log_bytes",
    "page_size",
    "pages_per_block",
    "blocks",
    "overprovision",
    "gc",
    "nop",
    "endurance",
    "spare_size",
];

/// A size-valued device parameter (`capacity`, `page_size`, `spare_size`):
/// bytes or a number with a unit, as every size flag takes them.
fn size<T: TryFrom<u64>>(key: &str, value: &str) -> Result<T> {
    super::size::parse_size_as(value)
        .map_err(|e| DeviceError::Config(format!("device parameter `{key}`: {e}")))
}

impl DeviceSpec {
    /// `NAME`, `raw:NAME` or `file:PATH`, with `K=V` overrides.
    pub fn parse(spec: &str, sets: &[(String, String)]) -> Result<DeviceSpec> {
        let (target, base) = if let Some(path) = spec.strip_prefix("file:") {
            if path.is_empty() {
                return Err(DeviceError::Config(
                    "file: needs a path, e.g. file:/tmp/index.db".into(),
                ));
            }
            let mut p = profile("slc-small")?;
            p.geometry.page_size = 4096;
            p.cost = CostModel::FREE;
            (Target::File(PathBuf::from(path)), p)
        } else if let Some(name) = spec.strip_prefix("raw:") {
            (Target::Raw, profile(name)?)
        } else if let Some(t) = ssd_profile(spec) {
            return Self::parse_ssd(spec, t, sets);
        } else {
            (Target::Ftl, profile(spec)?)
        };
        let mut d = DeviceSpec {
            name: spec.to_string(),
            target,
            geometry: base.geometry,
            cost: base.cost,
            ftl: FtlConfig::default(),
            file_pages: 0,
            explicit_size: false,
            atomic: false,
            direct: false,
            ssd: None,
            log_bytes: 0,
            cold_pages: 0,
        };
        let mut atomic = None;
        let mut log_bytes = None;
        let mut blocks_set = false;
        let mut total_bytes = base.geometry.bytes();
        for (k, v) in sets {
            let bad = |what: &str| {
                DeviceError::Config(format!("device parameter `{k}`: `{v}` is not {what}"))
            };
            match k.as_str() {
                "page_size" => d.geometry.page_size = size(k, v)?,
                "pages_per_block" => {
                    d.geometry.pages_per_block = v.parse().map_err(|_| bad("a count"))?
                }
                "blocks" => {
                    d.geometry.blocks = v.parse().map_err(|_| bad("a count"))?;
                    blocks_set = true;
                }
                "overprovision" => {
                    d.ftl.overprovision = v.parse().map_err(|_| bad("a fraction"))?
                }
                "gc" => d.ftl.gc = v.parse::<GcPolicy>().map_err(DeviceError::Config)?,
                "nop" => d.geometry.nop = v.parse().map_err(|_| bad("a count"))?,
                "endurance" => d.geometry.endurance = v.parse().map_err(|_| bad("a count"))?,
                "spare_size" => d.geometry.spare_size = size(k, v)?,
                "atomic" => atomic = Some(v.parse().map_err(|_| bad("true or false"))?),
                "log_bytes" => log_bytes = Some(size(k, v)?),
                "direct" => {
                    if !matches!(d.target, Target::File(_)) {
                        return Err(DeviceError::Config(
                            "direct=true|false is for file: devices (the page cache of a real file)".into(),
                        ));
                    }
                    d.direct = v.parse().map_err(|_| bad("true or false"))?;
                }
                "capacity" => {
                    total_bytes = size(k, v)?;
                    d.explicit_size = true;
                }
                other => {
                    let value: f64 = v.parse().map_err(|_| bad("a number"))?;
                    d.cost.set(other, value).map_err(|_| {
                        DeviceError::Config(format!(
                            "unknown device parameter `{other}`; accepted: {}, capacity, {}",
                            DEVICE_KEYS.join(", "),
                            CostModel::FIELDS.join(", ")
                        ))
                    })?;
                }
            }
        }
        let block_bytes = d.geometry.page_size as u64 * d.geometry.pages_per_block as u64;
        if block_bytes == 0 {
            return Err(DeviceError::Config(
                "page_size and pages_per_block must be positive".into(),
            ));
        }
        d.atomic = match (&d.target, atomic) {
            (Target::Raw, Some(true)) => {
                return Err(DeviceError::Config(
                    "atomic=true needs logical pages (an FTL profile or file:PATH); indexes on a raw chip recover by their own scan".into(),
                ))
            }
            (Target::Raw, _) => false,
            (Target::File(_), Some(false)) => {
                return Err(DeviceError::Config(
                    "a file is a store only through the commit layer (one on-disk format): `atomic=false` is for the simulated devices".into(),
                ))
            }
            (_, Some(a)) => a,
            (Target::File(_), None) => true,
            (Target::Ftl | Target::Ssd, None) => false,
        };
        d.log_bytes = match (log_bytes, &d.target) {
            (Some(n), _) if n > 0 && !d.atomic => {
                return Err(DeviceError::Config(
                    "log_bytes: the write-ahead log lives in the commit layer; add atomic=true (a simulated FTL) or use a file".into(),
                ))
            }
            (Some(n), _) => n,
            (None, Target::File(_)) => super::shadow::DEFAULT_LOG_BYTES,
            (None, _) => 0,
        };
        d.explicit_size |= blocks_set;
        if !blocks_set {
            d.geometry.blocks = (total_bytes / block_bytes).max(1);
        }
        if let Target::File(_) = d.target {
            d.file_pages = if d.explicit_size {
                d.geometry.blocks * d.geometry.pages_per_block as u64
            } else {
                0
            };
        }
        Ok(d)
    }

    /// A file store at `path` with the defaults of `file:PATH` (4 KiB
    /// pages, no size limit, the commit layer on): a path that is not
    /// UTF-8 needs no spelling as text.
    pub fn file(path: &std::path::Path) -> DeviceSpec {
        // `file:_` is a literal spec with no overrides: it always parses.
        let mut d = DeviceSpec::parse("file:_", &[]).expect("`file:_` parses");
        d.name = format!("file:{}", path.display());
        d.target = Target::File(path.to_path_buf());
        d
    }

    /// An SSD profile with its overrides: `page_size` (the request size),
    /// `capacity` (sizes, [`super::size`]), `atomic`, and the timing keys of
    /// [`SsdTiming::set`].
    fn parse_ssd(spec: &str, mut t: SsdTiming, sets: &[(String, String)]) -> Result<DeviceSpec> {
        let mut page_size = t.page_size;
        let mut capacity = t.capacity_bytes;
        let mut atomic = false;
        let mut explicit_size = false;
        let mut pages = None;
        for (k, v) in sets {
            let bad = |what: &str| {
                DeviceError::Config(format!("device parameter `{k}`: `{v}` is not {what}"))
            };
            match k.as_str() {
                "page_size" => page_size = size(k, v)?,
                "capacity" => {
                    capacity = size(k, v)?;
                    explicit_size = true;
                }
                "atomic" => atomic = v.parse().map_err(|_| bad("true or false"))?,
                // An SSD's erase units are hidden: a block is a page.
                "blocks" => {
                    pages = Some(v.parse::<u64>().map_err(|_| bad("a count"))?);
                    explicit_size = true;
                }
                other => {
                    if !t.set(other, v)? {
                        return Err(DeviceError::Config(format!(
                            "unknown SSD parameter `{other}`; accepted: page_size, capacity (sizes), blocks (pages), atomic, streams, span_request (true or false), and sr|sw|rr|rw_SIZE (a request size: 4096, 4KiB) or _tail (MB/s)"
                        )));
                    }
                }
            }
        }
        t.check()?;
        if page_size == 0 {
            return Err(DeviceError::Config("page_size must be positive".into()));
        }
        let mut geometry = profile("slc-small")?.geometry;
        geometry.page_size = page_size;
        geometry.pages_per_block = 1;
        geometry.blocks = pages.unwrap_or(capacity / page_size as u64).max(1);
        Ok(DeviceSpec {
            name: spec.to_string(),
            target: Target::Ssd,
            geometry,
            cost: CostModel::FREE,
            ftl: FtlConfig::default(),
            file_pages: 0,
            explicit_size,
            atomic,
            direct: false,
            log_bytes: 0,
            ssd: Some(t),
            cold_pages: 0,
        })
    }

    /// For a file that holds a store, takes the page size its commit
    /// record names (issue #41: the file says what it holds); anything
    /// else is left as it is.
    pub fn adopt_stored_page_size(&mut self) {
        use std::io::Read;
        let Target::File(path) = &self.target else {
            return;
        };
        let mut head = [0u8; 128];
        let read = std::fs::File::open(path).and_then(|f| f.take(128).read(&mut head));
        if let Ok(n) = read {
            if let Some(size) = super::Shadow::recorded_page_size(&head[..n]) {
                self.geometry.page_size = size as u32;
            }
        }
    }

    /// Builds a fresh device (a file is created or truncated).
    pub fn build(&self) -> Result<Storage> {
        self.make(false)
    }

    /// Opens an existing device: for a file, without truncating it; a
    /// simulated chip cannot outlive the process, so this is `build`.
    pub fn open_existing(&self) -> Result<Storage> {
        self.make(true)
    }

    /// Opens an existing file for reading only (a shared lock; every write
    /// refused, so the file stays byte-identical and may be read-only on
    /// disk). Only `file:` devices: a simulated chip holds nothing to read.
    pub fn open_read_only(&self) -> Result<Storage> {
        let Target::File(path) = &self.target else {
            return Err(DeviceError::Config(
                "only a file: device can be opened read-only".into(),
            ));
        };
        let dev: Box<dyn super::BlockDevice> = Box::new(FileDevice::open_read_only(
            path,
            self.geometry.page_size as usize,
            self.file_pages,
        )?);
        Ok(Storage::Pages(if self.atomic {
            Box::new(super::Shadow::mount_logged(dev, self.log_bytes)?)
        } else {
            dev
        }))
    }

    fn make(&self, existing: bool) -> Result<Storage> {
        let storage = self.make_plain(existing)?;
        match storage {
            Storage::Pages(dev) if self.atomic => Ok(Storage::Pages(Box::new(
                super::Shadow::mount_logged(dev, self.log_bytes)?,
            ))),
            s => Ok(s),
        }
    }

    /// The device without the commit layer (what damage tests rewrite).
    pub fn make_plain(&self, existing: bool) -> Result<Storage> {
        if self.cold_pages > 0 && self.target != Target::Ftl {
            return Err(DeviceError::Config(
                "preconditioning (cold pages) needs a simulated FTL device".into(),
            ));
        }
        match &self.target {
            Target::File(path) => {
                let (page, pages) = (self.geometry.page_size as usize, self.file_pages);
                let dev = match (existing, self.direct) {
                    (true, false) => FileDevice::open(path, page, pages)?,
                    (true, true) => FileDevice::open_direct(path, page, pages)?,
                    (false, false) => FileDevice::create(path, page, pages)?,
                    (false, true) => FileDevice::create_direct(path, page, pages)?,
                };
                Ok(Storage::Pages(Box::new(dev)))
            }
            Target::Raw => Ok(Storage::Raw(Box::new(Nand::new(
                &self.name,
                self.geometry,
                self.cost,
            )?))),
            Target::Ftl => {
                let nand = Nand::new(&self.name, self.geometry, self.cost)?;
                let ftl = Ftl::new(nand, self.ftl)?;
                if self.cold_pages > 0 {
                    return Ok(Storage::Pages(Box::new(Preconditioned::new(
                        ftl,
                        self.cold_pages,
                    )?)));
                }
                Ok(Storage::Pages(Box::new(ftl)))
            }
            Target::Ssd => {
                let timing = self.ssd.clone().ok_or_else(|| {
                    DeviceError::Config("an SSD device spec without its timing model".into())
                })?;
                Ok(Storage::Pages(Box::new(Ssd::new(
                    timing,
                    self.geometry.page_size as usize,
                    self.geometry.blocks,
                )?)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sets(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn profiles_carry_the_papers_costs() {
        let p = profile("slc-small").unwrap();
        assert_eq!(p.geometry.page_size, 512);
        assert_eq!(p.geometry.pages_per_block, 32);
        assert_eq!(p.cost.write(512).us, 909.0);
        assert_eq!(p.cost.erase().uj, 422.4);
        let t = profile("toshiba-byte").unwrap();
        assert!((t.cost.write(100).us - (274.0 + 157.7)).abs() < 1e-9);
        assert!(profile("nope")
            .unwrap_err()
            .to_string()
            .contains("slc-small"));
    }

    #[test]
    fn overrides_and_errors() {
        let d = DeviceSpec::parse(
            "slc-small",
            &sets(&[("blocks", "256"), ("write_us", "1000")]),
        )
        .unwrap();
        assert_eq!(d.geometry.blocks, 256);
        assert_eq!(d.cost.write_us, 1000.0);
        let e = DeviceSpec::parse("slc-small", &sets(&[("colour", "1")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("colour") && e.contains("pages_per_block"), "{e}");
        assert!(DeviceSpec::parse("slc-small", &sets(&[("blocks", "x")])).is_err());
        let tiny = DeviceSpec::parse("slc-small", &sets(&[("blocks", "2")])).unwrap();
        assert!(tiny.build().is_err());
        let op = DeviceSpec::parse("slc-small", &sets(&[("overprovision", "1.5")])).unwrap();
        assert!(op.build().is_err());
        let raw = DeviceSpec::parse("raw:mlc", &[]).unwrap();
        assert!(matches!(raw.build().unwrap(), Storage::Raw(_)));
    }

    #[test]
    fn size_parameters_take_units() {
        let kib = DeviceSpec::parse("slc-small", &sets(&[("capacity", "64KiB")])).unwrap();
        // 64 KiB of 512 B pages in blocks of 32: 4 blocks.
        assert_eq!((kib.geometry.blocks, kib.explicit_size), (4, true));
        let plain = DeviceSpec::parse("slc-small", &sets(&[("capacity", "65536")])).unwrap();
        assert_eq!(plain.geometry.blocks, 4);
        let si = DeviceSpec::parse("slc-small", &sets(&[("capacity", "1MB")])).unwrap();
        assert_eq!(si.geometry.blocks, 1_000_000 / (512 * 32));
        let page = DeviceSpec::parse(
            "mlc",
            &sets(&[("page_size", "8KiB"), ("spare_size", "64B")]),
        )
        .unwrap();
        assert_eq!(
            (page.geometry.page_size, page.geometry.spare_size),
            (8192, 64)
        );
        let file =
            DeviceSpec::parse("file:/nonexistent/x", &sets(&[("capacity", "1MiB")])).unwrap();
        assert_eq!(file.file_pages, 256);
        let ssd = DeviceSpec::parse("x25e", &sets(&[("capacity", "1GiB")])).unwrap();
        assert_eq!(ssd.geometry.blocks, (1 << 30) / 4096);
        let e = DeviceSpec::parse("slc-small", &sets(&[("capacity", "64 furlongs")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`capacity`") && e.contains("KiB, MiB"), "{e}");
        let e = DeviceSpec::parse("slc-small", &sets(&[("page_size", "8GiB")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`page_size`") && e.contains("too large"), "{e}");
        let e = DeviceSpec::parse("x25e", &sets(&[("capacity", "1.5")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("whole number of bytes"), "{e}");
    }

    #[test]
    fn a_device_spec_with_cold_pages_builds_a_preconditioned_ftl_only() {
        let sets = [("blocks".to_string(), "64".to_string())];
        let mut spec = DeviceSpec::parse("slc-small", &sets).unwrap();
        let Storage::Pages(plain) = spec.build().unwrap() else {
            panic!("an FTL has pages")
        };
        spec.cold_pages = 500;
        let Storage::Pages(dev) = spec.build().unwrap() else {
            panic!("an FTL has pages")
        };
        assert_eq!(dev.capacity_pages(), plain.capacity_pages() - 500);
        assert_eq!(dev.stats(), crate::device::DeviceStats::default());
        assert!(dev
            .info()
            .notes
            .iter()
            .any(|n| n.contains("preconditioned")));
        let mut raw = DeviceSpec::parse("raw:slc-small", &sets).unwrap();
        raw.cold_pages = 500;
        assert!(raw.build().is_err());
    }
}
