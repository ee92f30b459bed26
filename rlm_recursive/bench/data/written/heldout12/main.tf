# -----------------------------------------------------------------------------
# hvlib-infra / envs/prod/main.tf
# Owner: Digital Services (ticket DS-2291)   Last reviewed: 2026-10-30 by k.bright
# NOTE: state lives in the s3 backend below -- do NOT run `terraform apply`
#       from a laptop, use the pipeline (plan on PR, apply on merge to main).
# -----------------------------------------------------------------------------

terraform {
  required_version = ">= 1.6.0, < 2.0.0"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.62"
    }
    random = {
      source  = "hashicorp/random"
      version = "3.6.2"
    }
  }

  backend "s3" {
    bucket         = "hvlib-tfstate-prod"
    key            = "envs/prod/terraform.tfstate"
    region         = "eu-west-2"
    dynamodb_table = "hvlib-tf-locks"
    encrypt        = true
  }
}

provider "aws" {
  region = var.region

  default_tags {
    tags = {
      Project     = "hvlib"
      Environment = "prod"
      CostCentre  = "CC-4410"
      ManagedBy   = "terraform"
    }
  }
}

# ---------------------------------------------------------------- variables --

variable "region" {
  type    = string
  default = "eu-west-2"
}

variable "vpc_cidr" {
  description = "Prod VPC range (documentation range used in this repo's examples)"
  type        = string
  default     = "198.51.100.0/24"
}

variable "subnets" {
  description = "Map of subnet name => CIDR/AZ"
  type = map(object({
    cidr = string
    az   = string
  }))
  default = {
    public-a  = { cidr = "198.51.100.0/27",   az = "eu-west-2a" }
    public-b  = { cidr = "198.51.100.32/27",  az = "eu-west-2b" }
    app-a     = { cidr = "198.51.100.64/27",  az = "eu-west-2a" }
    app-b     = { cidr = "198.51.100.96/27",  az = "eu-west-2b" }
    data-a    = { cidr = "198.51.100.128/27", az = "eu-west-2a" }
    data-b    = { cidr = "198.51.100.160/27", az = "eu-west-2b" }
  }
}

variable "office_cidrs" {
  description = "Staff office egress addresses allowed to reach admin ports"
  type        = list(string)
  default     = ["203.0.113.14/32", "203.0.113.15/32", "192.0.2.80/29"]
}

variable "catalogue_instance_type" {
  type    = string
  default = "t3.large"
}

variable "reporting_instance_type" {
  type    = string
  default = "m6i.xlarge" # bumped from m6i.large 2026-09 (CIRC-OD reports timing out)
}

variable "db_instance_class" {
  type    = string
  default = "db.r6g.large"
}

# ---------------------------------------------------------------- network ----

resource "aws_vpc" "main" {
  cidr_block           = var.vpc_cidr
  enable_dns_hostnames = true
  tags                 = { Name = "hvlib-prod" }
}

resource "aws_subnet" "this" {
  for_each          = var.subnets
  vpc_id            = aws_vpc.main.id
  cidr_block        = each.value.cidr
  availability_zone = each.value.az
  tags              = { Name = "hvlib-prod-${each.key}" }
}

# ------------------------------------------------------------ security groups

resource "aws_security_group" "web" {
  name        = "hvlib-prod-web"
  description = "Public catalogue (OPAC) load balancer"
  vpc_id      = aws_vpc.main.id

  ingress {
    description = "HTTPS from anywhere"
    from_port   = 443
    to_port     = 443
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0"]
  }

  ingress {
    description = "HTTP redirect to HTTPS"
    from_port   = 80
    to_port     = 80
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0"]
  }

  egress {
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["0.0.0.0/0"]
  }
}

resource "aws_security_group" "app" {
  name        = "hvlib-prod-app"
  description = "Catalogue + circulation app servers"
  vpc_id      = aws_vpc.main.id

  ingress {
    description     = "App port from the load balancer only"
    from_port       = 8443
    to_port         = 8443
    protocol        = "tcp"
    security_groups = [aws_security_group.web.id]
  }

  ingress {
    description = "SSH from office"
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = var.office_cidrs
  }

  ingress {
    description = "SIP2 self-service kiosks (branch RFID units)"
    from_port   = 6001
    to_port     = 6001
    protocol    = "tcp"
    cidr_blocks = ["192.0.2.80/29", "203.0.113.96/28"]
  }

  egress {
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["0.0.0.0/0"]
  }
}

resource "aws_security_group" "reporting" {
  name        = "hvlib-prod-reporting"
  description = "Batch reporting host (CIRC-OD-*, stock rotation)"
  vpc_id      = aws_vpc.main.id

  ingress {
    description = "SSH from office"
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = var.office_cidrs
  }

  ingress {
    description = "Metabase dashboards, office only"
    from_port   = 3000
    to_port     = 3000
    protocol    = "tcp"
    cidr_blocks = ["203.0.113.14/32"]
  }

  egress {
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["0.0.0.0/0"]
  }
}

resource "aws_security_group" "db" {
  name        = "hvlib-prod-db"
  description = "PostgreSQL, app and reporting tiers only"
  vpc_id      = aws_vpc.main.id

  ingress {
    description     = "Postgres from app + reporting"
    from_port       = 5432
    to_port         = 5432
    protocol        = "tcp"
    security_groups = [aws_security_group.app.id, aws_security_group.reporting.id]
  }
}

# ---------------------------------------------------------------- compute ----

resource "aws_instance" "catalogue" {
  count                  = 2
  ami                    = "ami-0b7e3a91c4d2f5e61" # hvlib-base-2026.10 (Debian 12)
  instance_type          = var.catalogue_instance_type
  subnet_id              = count.index == 0 ? aws_subnet.this["app-a"].id : aws_subnet.this["app-b"].id
  vpc_security_group_ids = [aws_security_group.app.id]

  root_block_device {
    volume_size = 40
    volume_type = "gp3"
  }

  tags = { Name = "hvlib-prod-catalogue-${count.index + 1}", Role = "opac" }
}

resource "aws_instance" "reporting" {
  ami                    = "ami-0b7e3a91c4d2f5e61"
  instance_type          = var.reporting_instance_type
  subnet_id              = aws_subnet.this["data-b"].id
  vpc_security_group_ids = [aws_security_group.reporting.id]

  root_block_device {
    volume_size = 120
    volume_type = "gp3"
  }

  tags = { Name = "hvlib-prod-reporting", Role = "batch" }
}

resource "aws_instance" "mail_relay" {
  ami                    = "ami-04c1d8e2b7a9f0364" # postfix relay image 3.7
  instance_type          = "t3.small"
  subnet_id              = aws_subnet.this["public-a"].id
  vpc_security_group_ids = [aws_security_group.web.id]

  tags = { Name = "mx1", Role = "mail" }
}

# --------------------------------------------------------------- database ----

resource "aws_db_instance" "lms" {
  identifier              = "hvlib-prod-lms"
  engine                  = "postgres"
  engine_version          = "15.7"
  instance_class          = var.db_instance_class
  allocated_storage       = 200
  max_allocated_storage   = 500
  backup_retention_period = 14
  multi_az                = true
  vpc_security_group_ids  = [aws_security_group.db.id]
  deletion_protection     = true
  skip_final_snapshot     = false
  # username/password come from SSM, see secrets.tf
}

# ---------------------------------------------------------------- storage ----

resource "aws_s3_bucket" "covers" {
  bucket = "hvlib-prod-cover-images"
}

resource "aws_s3_bucket" "reports" {
  bucket = "hvlib-prod-batch-reports"
}

resource "aws_s3_bucket_lifecycle_configuration" "reports" {
  bucket = aws_s3_bucket.reports.id

  rule {
    id     = "expire-old-overdue-reports"
    status = "Enabled"
    filter { prefix = "circ-od/" }
    expiration { days = 400 }
  }

  rule {
    id     = "expire-stock-rotation"
    status = "Enabled"
    filter { prefix = "stock-rotation/" }
    expiration { days = 90 }
  }
}

# TODO(DS-2304): move mail_relay to its own SG, it should not share "web".
