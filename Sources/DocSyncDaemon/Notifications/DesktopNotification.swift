/// One desktop notification to show (SPEC §15), as `NotificationPlanner` decides it and
/// `DesktopNotifier` sends it: the freedesktop Notifications `Notify` call's summary, body
/// and urgency, and the situation it is about.
public struct DesktopNotification: Sendable, Hashable {
    /// The freedesktop urgency levels (the `urgency` hint, a byte).
    public enum Urgency: UInt8, Sendable, Hashable {
        case low = 0, normal = 1, critical = 2
    }

    /// The situation this is about (`NotificationSituation.key`): stable while the situation
    /// lasts, so that it is notified once.
    public var key: String
    /// One line: what happened, where ("3 conflicts kept as copies in Documents").
    public var summary: String
    /// What is at stake and what to do.
    public var body: String
    public var urgency: Urgency
    /// An update of a situation notified before, which grew (more conflicts, more deletions
    /// held): it replaces that notification on the desktop rather than adding one.
    public var replacesEarlier: Bool

    public init(key: String, summary: String, body: String, urgency: Urgency, replacesEarlier: Bool = false) {
        self.key = key
        self.summary = summary
        self.body = body
        self.urgency = urgency
        self.replacesEarlier = replacesEarlier
    }
}
