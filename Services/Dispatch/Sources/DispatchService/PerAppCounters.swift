import ServiceCore
import Synchronization

/// One counter family per app, made on first use: the `app` label of push-dispatch's delivery metrics. Only apps the
/// catalog serves get a label of their own; any other id counts as app `other`, so the label is bounded by the
/// configured apps.
final class PerAppCounters: Sendable {
    private let isServed: @Sendable (String) -> Bool
    private let make: @Sendable (String) -> CounterFamily
    private let families = Mutex<[String: CounterFamily]>([:])

    /// - Parameters:
    ///   - isServed: whether an app id is one the catalog serves.
    ///   - make: the family of one `app` label value.
    init(isServed: @escaping @Sendable (String) -> Bool, make: @escaping @Sendable (String) -> CounterFamily) {
        self.isServed = isServed
        self.make = make
    }

    /// The family of `appID` (or of `other`).
    func callAsFunction(_ appID: String) -> CounterFamily {
        let label = isServed(appID) ? appID : "other"
        return families.withLock { families in
            if let family = families[label] { return family }
            let family = make(label)
            families[label] = family
            return family
        }
    }
}
