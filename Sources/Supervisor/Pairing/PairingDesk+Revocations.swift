import FoundationEssentials
import PiRelaySDK

extension PairingDesk {
    /// The federation's report: the revocations made on other machines are taken in (a user
    /// they revoked on a shared bot loses a pairing made here before it), then the other
    /// machines' allowlists are adopted.
    package func federationReported(_ report: FederationReport, published: [String: Set<String>]) async {
        var next = revocations
        let new = next.take(report.revocations)
        var kept = paired
        var voided: [(PairedUser, Revocation)] = []
        for revocation in new where revocation.machine != sessions.machine && sections.sharedMessengers.contains(revocation.messenger) {
            let older = kept.users.filter {
                $0.messenger == revocation.messenger && $0.id == revocation.user && Revocations.voids(pairedAt: $0.pairedAt, revocation)
            }
            guard !older.isEmpty else { continue }
            _ = kept.remove(id: revocation.user, messenger: revocation.messenger)
            voided += older.map { ($0, revocation) }
        }
        if !voided.isEmpty {
            do { try kept.save() } catch {
                // Not taken in: the heartbeat goes on saying so, and the others keep leaving
                // these users out of this machine's allowlist. The next report tries again.
                logger.error("pairing: cannot save \(kept.path) to drop users revoked on another machine: \(error)")
                await adopt(federated: published, unreported: revocations.unreported(in: report.revocations))
                return
            }
            paired = kept
        }
        if next != revocations {
            revocations = next
            saveRevocations()
        }
        await adopt(federated: published, unreported: revocations.unreported(in: report.revocations))
        for (user, revocation) in voided {
            logger.notice(
                "pairing: \(user.name) (\(user.id)) was revoked on \(user.messenger) by machine \(revocation.machine ?? "?"), so here too")
            _ = await dropAccess(of: user.id, on: [user.messenger])
        }
    }

    /// What `relay.status` adds for the federation: the revocations made here that its database
    /// has not numbered yet, and the last one this machine has taken in.
    package var revocationStatus: (made: [Revocation], applied: Int) {
        (revocations.made, revocations.applied)
    }

    /// Saves the revocations; a failure is logged (the federation's report brings back what
    /// this machine took in, and a revocation made here was already answered for).
    func saveRevocations() {
        do { try revocations.save() } catch { logger.error("pairing: cannot save \(revocations.path): \(error)") }
    }
}
