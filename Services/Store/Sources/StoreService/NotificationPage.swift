/// One page of a recipient's notifications, newest first.
public struct NotificationPage: Sendable, Hashable {
    /// The notifications on this page.
    public var items: [NotificationMetadata]
    /// Where the next page starts; `nil` on the last page.
    public var next: ListCursor?

    public init(items: [NotificationMetadata], next: ListCursor?) {
        self.items = items
        self.next = next
    }
}
