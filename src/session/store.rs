//! The session store: bounded in number and age.

use super::Session;
use crate::config::LoopConfig;
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// At most this many sessions are kept; the least recently used goes first.
pub const MAX_SESSIONS: usize = 64;
/// A session unused for this long expires.
pub const SESSION_TTL: Duration = Duration::from_secs(30 * 60);

/// The session store: bounded in number and age.
#[derive(Default)]
pub struct Sessions {
    inner: Mutex<SessionMap>,
}

#[derive(Default)]
struct SessionMap {
    map: HashMap<String, (Instant, Arc<Mutex<Session>>)>,
    next: u64,
}

impl Sessions {
    /// Starts a session. It is built (which runs `git` for the root's
    /// provenance) without holding the store's lock, so other sessions'
    /// calls do not wait for it.
    pub fn create(&self, config: LoopConfig) -> Arc<Mutex<Session>> {
        let id = {
            let mut inner = self.inner.lock().expect("sessions poisoned");
            inner.next += 1;
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            format!("s{}-{:08x}", inner.next, nanos ^ (std::process::id() << 8))
        };
        let s = Arc::new(Mutex::new(Session::new(id.clone(), config)));
        let mut inner = self.inner.lock().expect("sessions poisoned");
        inner.map.retain(|_, (t, _)| t.elapsed() < SESSION_TTL);
        while inner.map.len() >= MAX_SESSIONS {
            let oldest = inner
                .map
                .iter()
                .min_by_key(|(_, (t, _))| *t)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => inner.map.remove(&k),
                None => break,
            };
        }
        inner.map.insert(id, (Instant::now(), s.clone()));
        s
    }

    /// Forgets a session (one whose first dispatch failed: its id was never
    /// handed out).
    pub fn remove(&self, id: &str) {
        self.inner.lock().expect("sessions poisoned").map.remove(id);
    }

    pub fn get(&self, id: &str) -> Result<Arc<Mutex<Session>>> {
        let mut inner = self.inner.lock().expect("sessions poisoned");
        inner.map.retain(|_, (t, _)| t.elapsed() < SESSION_TTL);
        match inner.map.get_mut(id) {
            Some((t, s)) => {
                *t = Instant::now();
                Ok(s.clone())
            }
            None => Err(Error::UnknownSession {
                id: id.to_string(),
                ttl_minutes: SESSION_TTL.as_secs() / 60,
                max: MAX_SESSIONS,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::tests::config;

    #[test]
    fn the_store_keeps_at_most_max_sessions_dropping_the_oldest() {
        let store = Sessions::default();
        let first = store.create(config()).lock().unwrap().id.clone();
        for _ in 0..MAX_SESSIONS {
            store.create(config());
        }
        let err = store.get(&first).err().expect("the oldest session is gone");
        assert!(err.to_string().contains("dispatch"), "{err}");
    }
}
