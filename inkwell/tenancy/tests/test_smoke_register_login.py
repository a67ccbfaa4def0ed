import pytest


@pytest.mark.django_db
def test_a_new_user_registers_logs_in_and_creates_a_site(api_client):
    response = api_client.post("/api/v1/auth/register/", {"email": "new@example.com", "password": "long-enough"}, format="json")
    assert response.status_code == 201
    assert response.json()["data"]["user"]["role"] == "owner"

    response = api_client.post("/api/v1/auth/login/", {"email": "NEW@example.com", "password": "long-enough"}, format="json")
    assert response.status_code == 200
    access = response.json()["data"]["access"]

    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {access}")
    response = api_client.post("/api/v1/auth/sites/", {"name": "Blog", "domain": "blog.example.com"}, format="json")
    assert response.status_code == 201
    assert response.json()["data"]["domain"] == "blog.example.com"
