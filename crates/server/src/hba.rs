//! Which authentication a connection needs: rules in pg_hba.conf's format, the first that
//! matches the connection type, database, user and client address deciding.
//!
//! The subset read: `local`, `host`, `hostssl` and `hostnossl` lines; databases `all`,
//! `sameuser`, `samerole` or names; users `all`, names or `+role` (members of the role);
//! addresses `all`, `a.b.c.d/n`, `::1/128` or an address followed by a mask column; methods
//! `trust`, `reject`, `password`, `md5` and `scram-sha-256`. Anything else in a file (other
//! methods, host names, options, `@file` lists) is an error when the file is read, never a
//! rule silently treated as another. Connections arrive over TCP without TLS, so `local`
//! and `hostssl` lines never match.

use std::net::IpAddr;

/// How a client proves who it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMethod {
    Trust,
    Reject,
    Password,
    Md5,
    ScramSha256,
}

impl AuthMethod {
    pub fn parse(name: &str) -> Option<AuthMethod> {
        Some(match name {
            "trust" => AuthMethod::Trust,
            "reject" => AuthMethod::Reject,
            "password" => AuthMethod::Password,
            "md5" => AuthMethod::Md5,
            "scram-sha-256" => AuthMethod::ScramSha256,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Connection {
    Local,
    Host,
    HostSsl,
    HostNoSsl,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Database {
    All,
    SameUser,
    SameRole,
    Named(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum User {
    All,
    Named(String),
    /// `+role`: the role and its members.
    MemberOf(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Address {
    All,
    Network { address: IpAddr, prefix_bits: u32 },
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    connection: Connection,
    databases: Vec<Database>,
    users: Vec<User>,
    address: Address,
    method: AuthMethod,
}

/// The rules, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HbaRules {
    rules: Vec<Rule>,
}

/// What the rules ask about a connection's role.
pub trait RoleMembership {
    fn is_member(&self, user: &str, role: &str) -> bool;
}

impl HbaRules {
    /// Reads pg_hba.conf text; errors name the line.
    pub fn parse(text: &str) -> Result<HbaRules, String> {
        let mut rules = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or_default();
            let fields = split_fields(line).map_err(|e| format!("line {}: {e}", index + 1))?;
            if fields.is_empty() {
                continue;
            }
            let rule = parse_rule(&fields).map_err(|e| format!("line {}: {e}", index + 1))?;
            rules.push(rule);
        }
        Ok(HbaRules { rules })
    }

    /// One rule for every TCP connection.
    pub fn everyone(method: AuthMethod) -> HbaRules {
        HbaRules {
            rules: vec![Rule {
                connection: Connection::Host,
                databases: vec![Database::All],
                users: vec![User::All],
                address: Address::All,
                method,
            }],
        }
    }

    /// Trust on the loopback addresses, `remote` from anywhere else.
    pub fn loopback_trust(remote: AuthMethod) -> HbaRules {
        let loopback = |address: IpAddr, prefix_bits| Rule {
            connection: Connection::Host,
            databases: vec![Database::All],
            users: vec![User::All],
            address: Address::Network {
                address,
                prefix_bits,
            },
            method: AuthMethod::Trust,
        };
        let mut rules = HbaRules::everyone(remote);
        rules
            .rules
            .insert(0, loopback(IpAddr::from([127, 0, 0, 1]), 8));
        rules
            .rules
            .insert(1, loopback(IpAddr::from([0u16, 0, 0, 0, 0, 0, 0, 1]), 128));
        rules
    }

    /// The method of the first rule matching a TCP connection (`None`: no rule matches).
    pub fn method_for(
        &self,
        database: &str,
        user: &str,
        client: IpAddr,
        roles: &dyn RoleMembership,
    ) -> Option<AuthMethod> {
        self.rules
            .iter()
            .find(|rule| {
                matches!(rule.connection, Connection::Host | Connection::HostNoSsl)
                    && rule.address.contains(client)
                    && rule
                        .databases
                        .iter()
                        .any(|d| d.matches(database, user, roles))
                    && rule.users.iter().any(|u| u.matches(user, roles))
            })
            .map(|rule| rule.method)
    }
}

impl Database {
    fn matches(&self, database: &str, user: &str, roles: &dyn RoleMembership) -> bool {
        match self {
            Database::All => true,
            Database::SameUser => database == user,
            Database::SameRole => roles.is_member(user, database),
            Database::Named(name) => name == database,
        }
    }
}

impl User {
    fn matches(&self, user: &str, roles: &dyn RoleMembership) -> bool {
        match self {
            User::All => true,
            User::Named(name) => name == user,
            User::MemberOf(role) => roles.is_member(user, role),
        }
    }
}

impl Address {
    fn contains(&self, client: IpAddr) -> bool {
        let Address::Network {
            address,
            prefix_bits,
        } = self
        else {
            return true;
        };
        // An IPv4 client may arrive as an IPv4-mapped IPv6 address.
        let client = match client {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(client, IpAddr::V4),
            v4 => v4,
        };
        match (address, client) {
            (IpAddr::V4(network), IpAddr::V4(client)) => {
                same_prefix(&network.octets(), &client.octets(), *prefix_bits)
            }
            (IpAddr::V6(network), IpAddr::V6(client)) => {
                same_prefix(&network.octets(), &client.octets(), *prefix_bits)
            }
            _ => false,
        }
    }
}

fn same_prefix(network: &[u8], client: &[u8], prefix_bits: u32) -> bool {
    let mut bits = prefix_bits;
    for (n, c) in network.iter().zip(client) {
        let take = bits.min(8);
        if take == 0 {
            break;
        }
        let mask = 0xFFu8 << (8 - take);
        if n & mask != c & mask {
            return false;
        }
        bits -= take;
    }
    true
}

/// Whitespace-separated fields; a double-quoted field keeps its spaces and commas (and is
/// never a keyword, as in PostgreSQL), marked by a leading `"`.
fn split_fields(line: &str) -> Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut field = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() {
                break;
            }
            chars.next();
            if c == '"' {
                field.push('"');
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some(c) => field.push(c),
                        None => return Err("unterminated quoted string".to_string()),
                    }
                }
            } else {
                field.push(c);
            }
        }
        fields.push(field);
    }
    Ok(fields)
}

/// A comma-separated list field; `"name"` items are names even if spelled like keywords.
fn list_items(field: &str) -> Vec<(String, bool)> {
    field
        .split(',')
        .map(|item| match item.strip_prefix('"') {
            Some(name) => (name.to_string(), true),
            None => (item.to_string(), false),
        })
        .collect()
}

fn parse_rule(fields: &[String]) -> Result<Rule, String> {
    let connection = match fields[0].as_str() {
        "local" => Connection::Local,
        "host" => Connection::Host,
        "hostssl" => Connection::HostSsl,
        "hostnossl" => Connection::HostNoSsl,
        other => return Err(format!("invalid connection type \"{other}\"")),
    };
    let address_fields = match connection {
        Connection::Local => 0,
        _ if fields.len() > 4 && AuthMethod::parse(&fields[4]).is_none() => 2,
        _ => 1,
    };
    let [_, databases, users, rest @ ..] = fields else {
        return Err("end-of-line before user name".to_string());
    };
    if rest.len() < address_fields + 1 {
        return Err("end-of-line before authentication method".to_string());
    }
    let (address, rest) = rest.split_at(address_fields);
    let [method, options @ ..] = rest else {
        return Err("end-of-line before authentication method".to_string());
    };
    if !options.is_empty() {
        return Err(format!(
            "authentication options are not supported: {}",
            options.join(" ")
        ));
    }
    Ok(Rule {
        connection,
        databases: list_items(databases)
            .into_iter()
            .map(|(item, quoted)| match (item.as_str(), quoted) {
                ("all", false) => Ok(Database::All),
                ("sameuser", false) => Ok(Database::SameUser),
                ("samerole" | "samegroup", false) => Ok(Database::SameRole),
                ("replication", false) => Err("replication connections are not supported".into()),
                (name, _) if name.starts_with('@') => {
                    Err(format!("file lists are not supported: {name}"))
                }
                (name, _) => Ok(Database::Named(name.to_string())),
            })
            .collect::<Result<_, String>>()?,
        users: list_items(users)
            .into_iter()
            .map(|(item, quoted)| match (item.as_str(), quoted) {
                ("all", false) => Ok(User::All),
                (name, false) if name.starts_with('@') => {
                    Err(format!("file lists are not supported: {name}"))
                }
                (name, false) if name.starts_with('+') => Ok(User::MemberOf(name[1..].to_string())),
                (name, _) => Ok(User::Named(name.to_string())),
            })
            .collect::<Result<_, String>>()?,
        address: parse_address(address)?,
        method: AuthMethod::parse(method)
            .ok_or_else(|| format!("invalid authentication method \"{method}\""))?,
    })
}

fn parse_address(fields: &[String]) -> Result<Address, String> {
    match fields {
        [] => Ok(Address::All),
        [all] if all == "all" => Ok(Address::All),
        [cidr] => {
            let (address, bits) = cidr.split_once('/').ok_or_else(|| {
                format!("invalid IP address \"{cidr}\" (host names are not supported)")
            })?;
            let address: IpAddr = address
                .parse()
                .map_err(|_| format!("invalid IP address \"{address}\""))?;
            let max = if address.is_ipv4() { 32 } else { 128 };
            let prefix_bits = bits
                .parse()
                .ok()
                .filter(|&b| b <= max)
                .ok_or_else(|| format!("invalid CIDR mask in address \"{cidr}\""))?;
            Ok(Address::Network {
                address,
                prefix_bits,
            })
        }
        [address, mask] => {
            let address: IpAddr = address
                .parse()
                .map_err(|_| format!("invalid IP address \"{address}\""))?;
            let mask: IpAddr = mask
                .parse()
                .map_err(|_| format!("invalid IP mask \"{mask}\""))?;
            let bits = match mask {
                IpAddr::V4(m) => u32::from(m).leading_ones(),
                IpAddr::V6(m) => u128::from(m).leading_ones(),
            };
            Ok(Address::Network {
                address,
                prefix_bits: bits,
            })
        }
        _ => Err("too many address fields".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoRoles;
    impl RoleMembership for NoRoles {
        fn is_member(&self, user: &str, role: &str) -> bool {
            user == "alice" && role == "staff"
        }
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap_or(IpAddr::from([0, 0, 0, 0]))
    }

    #[test]
    fn first_matching_rule_decides() -> Result<(), String> {
        let rules = HbaRules::parse(
            "# comment\n\
             local all all trust\n\
             host  all  bob  127.0.0.1/32  reject\n\
             host  shop +staff 10.0.0.0 255.0.0.0 md5   # trailing\n\
             hostnossl all all 127.0.0.0/8 scram-sha-256\n\
             host \"all\" all ::1/128 password\n",
        )?;
        let m = |db: &str, user: &str, addr: &str| rules.method_for(db, user, ip(addr), &NoRoles);
        assert_eq!(m("x", "bob", "127.0.0.1"), Some(AuthMethod::Reject));
        assert_eq!(m("x", "carol", "127.0.0.1"), Some(AuthMethod::ScramSha256));
        assert_eq!(
            m("x", "carol", "::ffff:127.0.0.1"),
            Some(AuthMethod::ScramSha256)
        );
        assert_eq!(m("shop", "alice", "10.1.2.3"), Some(AuthMethod::Md5));
        assert_eq!(m("shop", "carol", "10.1.2.3"), None);
        assert_eq!(m("all", "carol", "::1"), Some(AuthMethod::Password));
        assert_eq!(m("x", "carol", "::1"), None);
        Ok(())
    }

    #[test]
    fn unsupported_lines_are_errors() {
        for line in [
            "host all all 127.0.0.1/32 peer",
            "host all all localhost trust",
            "host all all 127.0.0.1/33 trust",
            "host all all 127.0.0.1/32 md5 clientcert=verify-full",
            "host replication all 127.0.0.1/32 trust",
            "host all @users 127.0.0.1/32 trust",
            "hots all all 127.0.0.1/32 trust",
            "host all all",
        ] {
            assert!(HbaRules::parse(line).is_err(), "{line}");
        }
    }

    #[test]
    fn loopback_trust_asks_others_for_a_password() {
        let rules = HbaRules::loopback_trust(AuthMethod::ScramSha256);
        let m = |addr: &str| rules.method_for("db", "u", ip(addr), &NoRoles);
        assert_eq!(m("127.0.0.1"), Some(AuthMethod::Trust));
        assert_eq!(m("::1"), Some(AuthMethod::Trust));
        assert_eq!(m("192.168.1.5"), Some(AuthMethod::ScramSha256));
    }
}
