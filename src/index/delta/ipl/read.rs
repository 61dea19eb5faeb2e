//! Reading a node of an [`IplStore`]: its base from its slot, then the
//! deltas of its log sectors and of its log buffer, each page checked by
//! its frame and each record by its owner.

use crate::node::delta::{self, Record};
use crate::node::NodeError;
use crate::node::{Node, NodeId};

use super::{IplStore, NOWHERE};

impl IplStore {
    /// Reads node `id`'s current version: its slot, its log sectors, its
    /// log buffer; returns the number of its newest record on flash.
    pub(super) fn read_current(&mut self, id: NodeId, node: &mut Node) -> Result<u64, NodeError> {
        let (unit, slot) = match self.places.get(id as usize) {
            Some(p) if p.unit != NOWHERE => (p.unit, p.slot),
            _ => {
                return Err(NodeError::Corrupt {
                    page: 0,
                    detail: format!("node {id} is not in the node table"),
                })
            }
        };
        let logs = std::mem::take(&mut self.places[id as usize].logs);
        let result = self.read_at(id, unit, slot, &logs, node);
        self.places[id as usize].logs = logs;
        let seq = result?;
        if let Some(b) = self.buffers.iter().find(|b| b.id == id) {
            for d in &b.deltas {
                d.apply(node, self.layout, 0)?;
            }
        }
        Ok(seq)
    }

    /// Reads node `id` from slot `slot` of `unit` and its log sectors
    /// `logs`; returns the highest sequence number read.
    pub(super) fn read_at(
        &mut self,
        id: NodeId,
        unit: u32,
        slot: u16,
        logs: &[u16],
        node: &mut Node,
    ) -> Result<u64, NodeError> {
        let first = self.slot_page(unit, slot);
        let used = self.slot_bytes();
        let ps = self.page_size;
        let mut buf = std::mem::take(&mut self.slot_buf);
        let mut result = Ok(());
        for i in 0..self.node_pages as usize {
            let end = used.min((i + 1) * ps);
            result = self.read_page(first + i as u64, 0, &mut buf[i * ps..end]);
            if result.is_err() {
                break;
            }
        }
        let layout = self.layout;
        let result = result.and_then(|()| {
            let (seq, body) =
                delta::open_page(&buf[..used], first)?.ok_or_else(|| NodeError::Corrupt {
                    page: first,
                    detail: format!("node {id}: its slot is empty"),
                })?;
            let mut found = false;
            delta::for_each_record(body, layout, first, |rid, r| match r {
                Record::Base { image, .. } if rid == id && !found => {
                    found = true;
                    layout.decode(image, first, node)
                }
                _ => Err(NodeError::Corrupt {
                    page: first,
                    detail: format!("node {id}: its slot holds another record"),
                }),
            })?;
            if found {
                Ok(seq)
            } else {
                Err(NodeError::Corrupt {
                    page: first,
                    detail: format!("node {id}: no base in its slot"),
                })
            }
        });
        self.slot_buf = buf;
        let mut newest = result?;
        for &log in logs {
            let p = self.log_page(unit, log);
            let mut page = std::mem::take(&mut self.page_buf);
            let result = self.read_page(p, 0, &mut page).and_then(|()| {
                let (seq, body) =
                    delta::open_page(&page, p)?.ok_or_else(|| NodeError::Corrupt {
                        page: p,
                        detail: format!("node {id}: its log sector is empty"),
                    })?;
                delta::for_each_record(body, layout, p, |rid, r| match r {
                    Record::Delta(d) if rid == id => d.apply(node, layout, p),
                    _ => Err(NodeError::Corrupt {
                        page: p,
                        detail: format!("node {id}: its log sector holds another record"),
                    }),
                })?;
                Ok(seq)
            });
            self.page_buf = page;
            self.counters.log_sector_reads += 1;
            newest = newest.max(result?);
        }
        Ok(newest)
    }
}
