"""Mounted at /review/ (inkwell/urls.py): the public page a review link opens, without signing in (#36)."""

from django.urls import path

from inkwell.console.views import review

app_name = "review"

urlpatterns = [
    path("<str:token>/", review.PublicReviewView.as_view(), name="page"),
    path("<str:token>/passcode/", review.PublicPasscodeView.as_view(), name="passcode"),
    path("<str:token>/comments/", review.PublicCommentView.as_view(), name="comment"),
    path("<str:token>/decision/", review.PublicDecisionView.as_view(), name="decision"),
]
