from django.urls import path

from inkwell.system import views

urlpatterns = [
    path("health/", views.HealthView.as_view(), name="system-health"),
]
