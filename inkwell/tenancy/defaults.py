"""The default catalogue every installation starts with: plans, roles and industries.

Loaded by a data migration and by ``manage.py load_defaults``; loading is idempotent and
updates rows in place, so editing this file and re-running keeps installations in step.
"""

from django.utils.text import slugify

PLANS = [
    # slug, name, max_sites, max_users, max_keywords, monthly_credits, signup_credits, price (cents)
    ("free", "Free", 1, 2, 500, 100, 100, 0),
    ("starter", "Starter", 3, 5, 5_000, 1_000, 100, 2_900),
    ("growth", "Growth", 10, 15, 50_000, 5_000, 100, 9_900),
    ("scale", "Scale", 50, 50, 500_000, 25_000, 100, 39_900),
]

ROLES = [
    ("owner", "Everything, including deleting the account and changing its owner."),
    ("admin", "Everything but deleting the account and changing its owner."),
    ("editor", "Creates and changes content data on the sites granted to them; no users, keys or settings."),
    ("viewer", "Reads the sites granted to them; changes nothing."),
]

INDUSTRIES = {
    "Technology": ["SaaS", "Cybersecurity", "Consumer Electronics", "Web Development", "Artificial Intelligence"],
    "Health & Wellness": ["Fitness", "Nutrition", "Mental Health", "Dental Care", "Skincare"],
    "Finance": ["Personal Finance", "Investing", "Insurance", "Cryptocurrency", "Small Business Lending"],
    "Home & Garden": ["Gardening", "Interior Design", "Home Improvement", "Smart Home"],
    "Travel & Hospitality": ["Adventure Travel", "Hotels", "Budget Travel", "Cruises"],
    "Food & Beverage": ["Recipes", "Coffee", "Wine", "Restaurants"],
    "Retail & E-commerce": ["Fashion", "Jewelry", "Pet Supplies", "Outdoor Gear"],
    "Education": ["Online Courses", "Language Learning", "Test Preparation", "Early Childhood"],
    "Automotive": ["Electric Vehicles", "Car Maintenance", "Car Buying"],
    "Real Estate": ["Residential Real Estate", "Commercial Real Estate", "Property Management"],
    "Legal Services": ["Personal Injury Law", "Family Law", "Immigration Law"],
    "Marketing": ["Search Engine Optimization", "Social Media Marketing", "Email Marketing", "Content Marketing"],
}


def load_defaults(Plan, Role, Industry, IndustrySector) -> None:
    """Creates or updates the catalogue; takes the model classes so migrations can pass theirs."""
    for order, (slug, name, sites, users, keywords, monthly, signup, price) in enumerate(PLANS):
        Plan.objects.update_or_create(
            slug=slug,
            defaults={
                "name": name,
                "max_sites": sites,
                "max_users": users,
                "max_keywords": keywords,
                "monthly_credits": monthly,
                "signup_credits": signup,
                "price_cents_monthly": price,
                "sort_order": order,
            },
        )
    for name, description in ROLES:
        Role.objects.update_or_create(name=name, defaults={"description": description})
    for industry_name, sector_names in INDUSTRIES.items():
        industry, _ = Industry.objects.update_or_create(slug=slugify(industry_name), defaults={"name": industry_name})
        for sector_name in sector_names:
            IndustrySector.objects.update_or_create(industry=industry, slug=slugify(sector_name), defaults={"name": sector_name})
