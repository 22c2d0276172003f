//! Which `Host` headers name this server: a page of another site must not reach it through a
//! name that resolves here (DNS rebinding). Accepted: `localhost` and the loopback addresses,
//! the address it listens on, or — listening on all (`0.0.0.0`, `::`) — this machine's own
//! addresses, and names the user gave (`--allow-host`); each with the server's port.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

pub struct AllowedHosts {
    addresses: Vec<IpAddr>,
    /// Lower case.
    names: Vec<String>,
    port: u16,
}

impl AllowedHosts {
    pub fn new(listen: IpAddr, port: u16, names: &[String]) -> AllowedHosts {
        let mut addresses = vec![
            IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(Ipv6Addr::LOCALHOST),
        ];
        if listen.is_unspecified() {
            addresses.extend(local_addresses());
        } else {
            addresses.push(listen);
        }
        let mut names: Vec<String> = names
            .iter()
            .map(|n| n.trim().to_ascii_lowercase())
            .collect();
        names.push("localhost".to_string());
        AllowedHosts {
            addresses,
            names,
            port,
        }
    }

    /// Whether `host` (a `Host` header: a name or address, and the port) names this server.
    pub fn allows(&self, host: &str) -> bool {
        let Some((name, port)) = host.rsplit_once(':') else {
            return false;
        };
        if port.parse::<u16>() != Ok(self.port) {
            return false;
        }
        let name = name
            .strip_prefix('[')
            .and_then(|n| n.strip_suffix(']'))
            .unwrap_or(name);
        match name.parse::<IpAddr>() {
            Ok(ip) => self.addresses.contains(&ip),
            Err(_) => self.names.contains(&name.to_ascii_lowercase()),
        }
    }
}

/// The addresses of this machine's network interfaces.
#[cfg(unix)]
fn local_addresses() -> Vec<IpAddr> {
    let mut found = Vec::new();
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: on success getifaddrs points `list` at a list that freeifaddrs frees below.
    if unsafe { libc::getifaddrs(&mut list) } != 0 {
        log::warn!("cannot list this machine's addresses; only loopback names it");
        return found;
    }
    let mut cursor = list;
    while !cursor.is_null() {
        // SAFETY: `cursor` is an entry of the list, alive until freeifaddrs.
        let entry = unsafe { &*cursor };
        if !entry.ifa_addr.is_null() {
            // SAFETY: `ifa_addr` points at a socket address whose family says its type.
            unsafe {
                match i32::from((*entry.ifa_addr).sa_family) {
                    libc::AF_INET => {
                        let v4 = &*(entry.ifa_addr as *const libc::sockaddr_in);
                        found.push(IpAddr::V4(Ipv4Addr::from(u32::from_be(v4.sin_addr.s_addr))));
                    }
                    libc::AF_INET6 => {
                        let v6 = &*(entry.ifa_addr as *const libc::sockaddr_in6);
                        found.push(IpAddr::V6(Ipv6Addr::from(v6.sin6_addr.s6_addr)));
                    }
                    _ => {}
                }
            }
        }
        cursor = entry.ifa_next;
    }
    // SAFETY: the list getifaddrs made, freed once.
    unsafe { libc::freeifaddrs(list) };
    found
}

#[cfg(not(unix))]
fn local_addresses() -> Vec<IpAddr> {
    log::warn!(
        "this machine's addresses are not listed here; only loopback and --allow-host names it"
    );
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_this_servers_names_are_valid_hosts() {
        let loopback = AllowedHosts::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 8080, &[]);
        assert!(loopback.allows("127.0.0.1:8080"));
        assert!(loopback.allows("localhost:8080"));
        assert!(loopback.allows("LocalHost:8080"));
        assert!(loopback.allows("[::1]:8080"));
        assert!(!loopback.allows("192.168.1.5:8080"));
        assert!(!loopback.allows("127.0.0.1:8081"));
        assert!(!loopback.allows("evil.example:8080"));
        assert!(!loopback.allows("127.0.0.1"));
        assert!(!loopback.allows(""));
        let named = AllowedHosts::new(
            "192.168.1.5".parse().unwrap(),
            8080,
            &["Board.Example".to_string()],
        );
        assert!(named.allows("192.168.1.5:8080"));
        assert!(named.allows("board.example:8080"));
        assert!(!named.allows("10.1.2.3:8080"));
        // Listening on all: this machine's own addresses, never any address at all.
        let all = AllowedHosts::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), 8080, &[]);
        assert!(all.allows("127.0.0.1:8080"));
        assert!(!all.allows("203.0.113.7:8080"));
        for ip in local_addresses() {
            let host = match ip {
                IpAddr::V4(ip) => format!("{ip}:8080"),
                IpAddr::V6(ip) => format!("[{ip}]:8080"),
            };
            assert!(all.allows(&host), "{host}");
        }
    }
}
