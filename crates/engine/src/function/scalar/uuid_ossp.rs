//! The functions of PostgreSQL's uuid-ossp extension, which ORMs such as TypeORM call for
//! column defaults: `uuid_generate_v1()`, `uuid_generate_v1mc()`, `uuid_generate_v3(ns,
//! name)`, `uuid_generate_v4()` (gen_random_uuid), `uuid_generate_v5(ns, name)`,
//! `uuid_nil()` and the RFC 4122 namespaces `uuid_ns_dns()`, `_url()`, `_oid()`, `_x500()`.

use std::time::{SystemTime, UNIX_EPOCH};

use md5::Md5;
use sha1::{Digest, Sha1};

use super::kernel::{map_rows, texts, values};
use crate::error::{Error, Result, SqlState};
use crate::vector::{Vector, VectorData};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UuidOssp {
    /// Version 1: the time, a random clock sequence and a random node. uuid-ossp's v1 uses
    /// the host's MAC address; a random node with the multicast bit set (RFC 4122 §4.5) is
    /// what v1mc gives, and what both give here.
    TimeBased {
        multicast: bool,
    },
    /// Versions 3 and 5: MD5 or SHA-1 of the namespace's bytes and the name.
    NameBased {
        sha1: bool,
    },
    Nil,
    Namespace(Namespace),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Namespace {
    Dns,
    Url,
    Oid,
    X500,
}

/// RFC 4122's namespace UUIDs differ only in their first byte's low bits.
const NAMESPACE_BASE: u128 = 0x6ba7_b810_9dad_11d1_80b4_00c0_4fd4_30c8;

/// 100-nanosecond intervals from the Gregorian reform (1582-10-15) to the Unix epoch.
const GREGORIAN_TO_UNIX: u64 = 0x01b2_1dd2_1381_4000;

impl UuidOssp {
    pub fn name(self) -> &'static str {
        match self {
            UuidOssp::TimeBased { multicast: false } => "uuid_generate_v1",
            UuidOssp::TimeBased { multicast: true } => "uuid_generate_v1mc",
            UuidOssp::NameBased { sha1: false } => "uuid_generate_v3",
            UuidOssp::NameBased { sha1: true } => "uuid_generate_v5",
            UuidOssp::Nil => "uuid_nil",
            UuidOssp::Namespace(Namespace::Dns) => "uuid_ns_dns",
            UuidOssp::Namespace(Namespace::Url) => "uuid_ns_url",
            UuidOssp::Namespace(Namespace::Oid) => "uuid_ns_oid",
            UuidOssp::Namespace(Namespace::X500) => "uuid_ns_x500",
        }
    }

    /// Only the time-based ones differ between calls.
    pub fn is_volatile(self) -> bool {
        matches!(self, UuidOssp::TimeBased { .. })
    }

    pub fn eval(self, args: &[Vector], rows: usize) -> Result<Vector> {
        let constant = |value: u128| Ok(Vector::new(VectorData::Uuid(vec![value; rows]), None));
        match self {
            UuidOssp::Nil => constant(0),
            UuidOssp::Namespace(ns) => constant(
                NAMESPACE_BASE
                    + match ns {
                        Namespace::Dns => 0,
                        Namespace::Url => 1 << 96,
                        Namespace::Oid => 2 << 96,
                        Namespace::X500 => 4 << 96,
                    },
            ),
            UuidOssp::NameBased { sha1 } => {
                let (namespaces, names) = (values::<u128>(args, 0)?, texts(args, 1)?);
                map_rows(args, |row| {
                    let mut input = namespaces[row].to_be_bytes().to_vec();
                    input.extend_from_slice(names.get(row).as_bytes());
                    let (digest, version) = match sha1 {
                        false => (Md5::digest(&input).to_vec(), 3),
                        true => (Sha1::digest(&input).to_vec(), 5),
                    };
                    let mut octets = [0u8; 16];
                    octets.copy_from_slice(&digest[..16]);
                    Ok(with_version(octets, version))
                })
            }
            UuidOssp::TimeBased { .. } => time_based(rows),
        }
    }
}

/// Sets the version nibble and RFC 4122's variant bits.
fn with_version(mut octets: [u8; 16], version: u8) -> u128 {
    octets[6] = (octets[6] & 0x0f) | (version << 4);
    octets[8] = (octets[8] & 0x3f) | 0x80;
    u128::from_be_bytes(octets)
}

/// Version 1 UUIDs of the current time, one 100 ns tick apart so that the rows of one call
/// differ, with a random clock sequence and node.
fn time_based(rows: usize) -> Result<Vector> {
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_err(|e| Error::new(SqlState::InternalError, format!("clock before 1970: {e}")))?;
    let ticks = GREGORIAN_TO_UNIX + (since_epoch.as_nanos() / 100) as u64;
    let values = super::bytea::random_bytes(rows * 8)?
        .chunks_exact(8)
        .enumerate()
        .map(|(row, random)| {
            let time = ticks.wrapping_add(row as u64);
            let mut octets = [0u8; 16];
            octets[0..4].copy_from_slice(&(time as u32).to_be_bytes());
            octets[4..6].copy_from_slice(&((time >> 32) as u16).to_be_bytes());
            octets[6..8].copy_from_slice(&((time >> 48) as u16).to_be_bytes());
            // Clock sequence, then the node with its multicast bit set.
            octets[8..16].copy_from_slice(random);
            octets[10] |= 0x01;
            with_version(octets, 1)
        })
        .collect();
    Ok(Vector::new(VectorData::Uuid(values), None))
}
