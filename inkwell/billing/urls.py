from django.urls import path
from rest_framework.routers import SimpleRouter

from inkwell.billing import views

router = SimpleRouter()
router.register("usage", views.UsageViewSet, basename="billing-usage")
router.register("transactions", views.TransactionViewSet, basename="billing-transaction")

urlpatterns = [
    path("balance/", views.BalanceView.as_view(), name="billing-balance"),
    path("credits/add/", views.CreditsAddView.as_view(), name="billing-credits-add"),
    *router.urls,
]
