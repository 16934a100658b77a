/// The pairing codes waiting to be claimed, at most one per messenger (a new `pair` replaces
/// the one before). Pure: the caller passes the time and acts on what each call returns.
package struct PairingOffers: Sendable {
    package static let maxWrongTries = 5

    package private(set) var open: [String: PairingOffer] = [:]

    /// What a claim (`/pair CODE`) came to.
    package enum Claim: Sendable, Equatable {
        /// The code is right: the offer is used up.
        case accepted(PairingOffer)
        /// Wrong, used, expired or no code at all (the user is told the same in every case).
        /// `voided` is the offer this wrong try used up, the fifth.
        case rejected(voided: PairingOffer?)
        /// Not in a direct message. `voided` is the open code when that was it: posted where
        /// others read it, it must not work any more.
        case refusedOutsideDM(voided: PairingOffer?)
    }

    /// Opens `offer`; returns the one it replaces.
    package mutating func add(_ offer: PairingOffer) -> PairingOffer? {
        let replaced = open[offer.messenger]
        open[offer.messenger] = offer
        return replaced
    }

    /// Removes and returns the offers past their expiry.
    package mutating func expire(now: ContinuousClock.Instant) -> [PairingOffer] {
        let gone = open.values.filter { $0.expires <= now }
        for offer in gone { open[offer.messenger] = nil }
        return gone
    }

    /// Removes `code` (its terminal went away); nil when it is no longer open.
    package mutating func withdraw(messenger: String, code: String) -> PairingOffer? {
        guard open[messenger]?.code == code else { return nil }
        return open.removeValue(forKey: messenger)
    }

    /// A user of `messenger` sent `typed`. Expired offers must have been removed first.
    package mutating func claim(messenger: String, typed: String, inDM: Bool) -> Claim {
        guard var offer = open[messenger] else { return inDM ? .rejected(voided: nil) : .refusedOutsideDM(voided: nil) }
        let right = PairingCode.matches(typed, offer.code)
        guard inDM else {
            if right { open[messenger] = nil }
            return .refusedOutsideDM(voided: right ? offer : nil)
        }
        if right {
            open[messenger] = nil
            return .accepted(offer)
        }
        offer.wrongTries += 1
        if offer.wrongTries >= Self.maxWrongTries {
            open[messenger] = nil
            return .rejected(voided: offer)
        }
        open[messenger] = offer
        return .rejected(voided: nil)
    }
}
