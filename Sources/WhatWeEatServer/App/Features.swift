/// Every feature of the app, one line each. The order is the order of migrations and seeders
/// (a feature's tables may refer to those of the features above it).
enum Features {
    static let all: [any Feature.Type] = [
        AccountsFeature.self,
        NotificationsInboxFeature.self,
        MenuGameFeature.self,
        BanchanFeature.self,
        BurgerMapFeature.self,
        MatesFeature.self,
    ]
}
