//! The USI handshake: `usi` … `usiok` (the engine's name and options), the options set, then
//! `isready` … `readyok`.

use std::time::Duration;

use super::error::EngineError;
use super::process::EngineProcess;

/// What the engine told about itself during the handshake.
#[derive(Clone, Debug, Default)]
pub struct EngineId {
    pub name: Option<String>,
    /// Names of the options it declared.
    pub options: Vec<String>,
}

impl EngineId {
    /// Whether the engine declared option `name` (USI option names ignore case).
    pub fn declares(&self, name: &str) -> bool {
        self.options.iter().any(|o| o.eq_ignore_ascii_case(name))
    }
}

impl EngineProcess {
    /// `usi` … `usiok`, then the options, then `isready` … `readyok`.
    pub fn handshake(
        &mut self,
        options: &[(String, String)],
        timeout: Duration,
    ) -> Result<EngineId, EngineError> {
        self.send("usi")?;
        let mut id = EngineId::default();
        self.wait_for("usiok", timeout, |line| {
            if let Some(name) = line.strip_prefix("id name ") {
                id.name = Some(name.trim().to_string());
            } else if let Some(rest) = line.strip_prefix("option name ") {
                let name = rest.split(" type ").next().unwrap_or(rest).trim();
                id.options.push(name.to_string());
            }
        })?;
        for (name, value) in options {
            if !id.declares(name) {
                log::warn!("{}: engine declared no option '{name}'", self.name());
            }
            self.send(&format!("setoption name {name} value {value}"))?;
        }
        self.sync(timeout)?;
        Ok(id)
    }

    /// `isready` … `readyok`, discarding anything the engine said before.
    pub fn sync(&mut self, timeout: Duration) -> Result<(), EngineError> {
        self.send("isready")?;
        self.wait_for("readyok", timeout, |_| {})?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::process::tests::spec;
    use super::*;

    #[test]
    fn silent_program_times_out_and_exiting_program_is_reported() {
        let mut silent = EngineProcess::spawn(&spec("sleep 5")).unwrap();
        let err = silent
            .handshake(&[], Duration::from_millis(100))
            .unwrap_err();
        assert!(matches!(err, EngineError::Timeout { .. }), "{err}");
        let mut gone = EngineProcess::spawn(&spec("true")).unwrap();
        let err = gone.handshake(&[], Duration::from_secs(5)).unwrap_err();
        assert!(
            matches!(err, EngineError::Exited { .. } | EngineError::Write(_)),
            "{err}"
        );
    }
}
